"""Aider: the Markdown chat history it keeps in each project (`.aider.chat.history.md`)."""
