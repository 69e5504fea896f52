"""Codex edits as FileChanges: `apply_patch` text and `patch_apply_end.changes`.

apply_patch is Codex's own patch language (`*** Begin Patch` / `*** Update File:` /
`@@ anchor` / ` -+` lines), not a unified diff; its hunks carry no line numbers,
so an update hunk keeps the patch's own `@@ anchor` header rather than invented
numbers. `patch_apply_end.changes` has real unified diffs and wins when present.
"""
from __future__ import annotations

import re
from typing import Any

from replay_site.diffs import diff_texts
from replay_site.model import FileChange

_HEREDOC = re.compile(r"\*\*\* Begin Patch\n.*?\*\*\* End Patch", re.S)


def patch_in(text: object) -> str | None:
    """The `*** Begin Patch … *** End Patch` block inside a string (tool input or shell heredoc);
    None for anything else, whatever type a damaged log put there."""
    if not isinstance(text, str) or "*** Begin Patch" not in text:
        return None
    match = _HEREDOC.search(text)
    return match.group(0) if match else text[text.index("*** Begin Patch") :]


def parse_apply_patch(text: str, cwd: str | None = None) -> list[FileChange]:
    changes: list[FileChange] = []
    current: FileChange | None = None
    body: list[str] = []
    added = 0

    def flush() -> None:
        nonlocal current, body, added
        if current is not None:
            if current.kind == "add":
                current.diff = f"@@ -0,0 +1,{added} @@\n" + "".join(body) if added else ""
            else:
                current.diff = "".join(body)
            changes.append(current)
        current, body, added = None, [], 0

    for line in text.splitlines():
        if line.startswith("*** Add File: "):
            flush()
            current = FileChange(_rel(line[14:].strip(), cwd), "add")
        elif line.startswith("*** Delete File: "):
            flush()
            current = FileChange(_rel(line[17:].strip(), cwd), "delete")
        elif line.startswith("*** Update File: "):
            flush()
            current = FileChange(_rel(line[17:].strip(), cwd), "modify")
        elif line.startswith("*** Move to: ") and current is not None:
            current.kind = "rename"
            current.new_path = _rel(line[13:].strip(), cwd)
        elif line.startswith(("*** Begin Patch", "*** End Patch", "*** End of File")):
            if line.startswith("*** End Patch"):
                flush()
        elif current is None:
            continue
        elif current.kind == "add":
            if line.startswith("+"):
                body.append(line + "\n")
                added += 1
        elif line.startswith("@@"):
            body.append(line + "\n")
        elif line[:1] in (" ", "-", "+"):
            if not body:
                body.append("@@\n")  # a hunk without anchor still needs a header to be a hunk
            body.append(line + "\n")
        elif line == "":
            body.append(" \n")  # apply_patch tolerates blank context lines without the leading space
    flush()
    return changes


def changes_from_event(changes: Any, cwd: str | None = None) -> list[FileChange]:
    """`patch_apply_end.changes` / item FileChange: {path: {type: add|delete|update, …}} (or the
    older externally tagged {path: {"update": {…}}})."""
    out: list[FileChange] = []
    if not isinstance(changes, dict):
        return out
    for path, change in changes.items():
        if not isinstance(change, dict):
            continue
        kind = change.get("type")
        if kind is None and len(change) == 1:
            kind, inner = next(iter(change.items()))
            change = inner if isinstance(inner, dict) else {}
        rel = _rel(str(path), cwd)
        if kind == "add":
            out.append(FileChange(rel, "add", diff_texts("", str(change.get("content") or ""))))
        elif kind == "delete":
            content = change.get("content")
            out.append(FileChange(rel, "delete", diff_texts(str(content), "") if content else ""))
        else:
            diff = str(change.get("unified_diff") or "")
            move = change.get("move_path")
            if move:
                out.append(FileChange(rel, "rename", diff, _rel(str(move), cwd)))
            else:
                out.append(FileChange(rel, "modify", diff))
    return out


def _rel(path: str, cwd: str | None) -> str:
    """Paths inside the session's cwd are shown relative to it, as the agent wrote them."""
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path
