"""GitHub Copilot CLI: `~/.copilot/session-state/<session>/events.jsonl`, one event a line."""
