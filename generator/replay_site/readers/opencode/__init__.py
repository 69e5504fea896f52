"""OpenCode: sessions in its SQLite database, or (before 2026's move to SQLite) a folder of JSON files."""
