"""replay-site: static HTML replays of AI coding agent sessions."""

__version__ = "0.1.0"
