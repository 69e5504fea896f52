"""FileChanges from the shapes agents record edits in: old/new text, hunks, patches."""
from __future__ import annotations

import difflib
from collections.abc import Iterable

from .model import FileChange


def diff_texts(old: str, new: str, context: int = 3) -> str:
    """A unified diff body (hunks only) turning `old` into `new`."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), n=context, lineterm=""
    )
    body = [line if line.endswith("\n") else line + "\n" for line in lines]
    # Drop difflib's ---/+++ header: the path is shown by the FileChange itself.
    return "".join(body[2:]) if len(body) >= 2 else ""


def change_from_texts(path: str, old: str | None, new: str | None) -> FileChange:
    """Add when there was no old text, delete when there is no new text, else modify."""
    if old is None:
        return FileChange(path, "add", diff_texts("", new or ""))
    if new is None:
        return FileChange(path, "delete", diff_texts(old, ""))
    return FileChange(path, "modify", diff_texts(old, new))


def hunks_to_diff(hunks: Iterable[dict]) -> str:
    """Join structured hunks ({oldStart, oldLines, newStart, newLines, lines}) into diff text."""
    out = []
    for hunk in hunks:
        out.append(
            f"@@ -{hunk.get('oldStart', 0)},{hunk.get('oldLines', 0)} "
            f"+{hunk.get('newStart', 0)},{hunk.get('newLines', 0)} @@\n"
        )
        out.extend(line.rstrip("\n") + "\n" for line in hunk.get("lines", []) if isinstance(line, str))
    return "".join(out)
