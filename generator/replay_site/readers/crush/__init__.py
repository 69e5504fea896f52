"""Crush (charmbracelet/crush): each project's `.crush/crush.db`."""
