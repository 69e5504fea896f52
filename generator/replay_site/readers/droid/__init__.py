"""Factory Droid (Factory.ai's `droid` CLI): one JSONL file per session, a settings file beside it."""
