"""Kimi CLI and Kimi Code: a session folder with wire.jsonl (every event) and context.jsonl."""
