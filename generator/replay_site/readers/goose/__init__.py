"""Goose (block/goose): sessions in its SQLite database, or one JSONL file each before it."""
