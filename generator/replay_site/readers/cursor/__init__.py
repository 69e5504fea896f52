"""Cursor's agent CLI (cursor-agent): one SQLite store per chat."""
