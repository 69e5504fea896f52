"""FileChanges from the shapes agents record edits in: old/new text, hunks, patches."""
from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field

from replay_site.model import HUNK_HEADER, FileChange


def diff_texts(old: str, new: str, context: int = 3) -> str:
    """A unified diff body (hunks only) turning `old` into `new`."""
    before, after = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if not before or not after:
        return _one_sided(before, after)
    lines = difflib.unified_diff(before, after, n=context, lineterm="")
    body = [line if line.endswith("\n") else line + "\n" for line in lines]
    # Drop difflib's ---/+++ header: the path is shown by the FileChange itself.
    return "".join(body[2:]) if len(body) >= 2 else ""


def _one_sided(before: list[str], after: list[str]) -> str:
    """What difflib's unified diff gives when one side has no lines (a new file, a file
    emptied): one hunk of every line of the other, without matching anything (a new file's
    diff through difflib was a tenth of reading a long session's steps)."""
    if not before and not after:
        return ""
    sign, lines = ("+", after) if after else ("-", before)
    every = "1" if len(lines) == 1 else f"1,{len(lines)}"
    header = f"@@ -0,0 +{every} @@\n" if after else f"@@ -{every} +0,0 @@\n"
    return header + "".join(sign + line if line.endswith("\n") else sign + line + "\n" for line in lines)


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


# A new file longer than this many lines is shown folded.
NEW_FILE_FOLD = 300


@dataclass
class DiffRow:
    kind: str  # hunk | add | del | ctx | file
    old: int | None  # line numbers for the gutter
    new: int | None
    text: str
    gutter: str = ""  # the old and new numbers, padded to the diff's widest


@dataclass
class DiffView:
    """A FileChange ready to show: rows with line numbers, +N/−M, and whether it is a whole
    new file (shown as the file, not as an all-added diff)."""

    path: str
    kind: str
    new_path: str | None
    rows: list[DiffRow] = field(default_factory=list)
    added: int = 0
    removed: int = 0
    new_file_text: str | None = None  # the file's content, when the change only adds lines

    @property
    def folded(self) -> bool:
        return self.new_file_text is not None and self.added > NEW_FILE_FOLD


def diff_view(change: FileChange) -> DiffView:
    """Rows with line numbers and the +N/-M counts, from the lines as FileChange.line_kinds
    reads them; a hunk header without numbers gives its lines no invented numbers."""
    view = DiffView(change.path, change.kind, change.new_path)
    old: int | None = 0  # the next line numbers; None where the header gave none
    new: int | None = 0
    for kind, line in change.line_kinds():
        if kind == "hunk":
            start = HUNK_HEADER.match(line)
            old, new = (int(start.group(1)), int(start.group(3))) if start else (None, None)
            view.rows.append(DiffRow("hunk", None, None, line))
        elif kind == "file":
            view.rows.append(DiffRow("file", None, None, line))
        elif kind == "add":
            view.added += 1
            view.rows.append(DiffRow("add", None, new, line))
            new = _next(new)
        elif kind == "del":
            view.removed += 1
            view.rows.append(DiffRow("del", old, None, line))
            old = _next(old)
        else:
            view.rows.append(DiffRow("ctx", old, new, line))
            old, new = _next(old), _next(new)
    old, new = max((row.old or 0 for row in view.rows), default=0), max((row.new or 0 for row in view.rows), default=0)
    width = len(str(max(old, new)))
    for row in view.rows:
        row.gutter = f"{row.old or '':>{width}} {row.new or '':>{width}} "
    if view.added and not view.removed and all(row.kind in ("add", "hunk") for row in view.rows):
        view.new_file_text = "\n".join(row.text[1:] for row in view.rows if row.kind == "add")
    return view


def _next(number: int | None) -> int | None:
    return None if number is None else number + 1
