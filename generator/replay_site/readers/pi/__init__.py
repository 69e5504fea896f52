"""Pi (pi-mono coding agent): one JSONL session file per run, entries in a tree."""
