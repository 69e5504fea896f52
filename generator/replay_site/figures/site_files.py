"""Site-wide tables made from the per-session summaries alone: every changed file with the
sessions and steps that changed it (files.html), one row of figures per session
(sessions.csv), and every summary (sessions.json)."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

import orjson

from replay_site.version import __version__
from replay_site.figures.inputs import Inputs
from replay_site.figures.summary import SessionSummary


@dataclass
class FileInSession:
    summary: SessionSummary
    added: int
    removed: int
    steps: list[int]


@dataclass
class ChangedFile:
    path: str
    added: int = 0
    removed: int = 0
    sessions: list[FileInSession] = field(default_factory=list)

    @property
    def net(self) -> int:
        return self.added - self.removed


def changed_files(summaries: list[SessionSummary]) -> list[ChangedFile]:
    """Every path some session changed, sorted by path; its sessions in the site's order."""
    found: dict[str, ChangedFile] = {}
    for summary in summaries:
        for change in summary.files_changed:
            entry = found.setdefault(change["path"], ChangedFile(change["path"]))
            entry.added += change["added"]
            entry.removed += change["removed"]
            entry.sessions.append(FileInSession(summary, change["added"], change["removed"], list(change["steps"])))
    return [found[path] for path in sorted(found)]


CSV_COLUMNS = (
    "id", "title", "outcome", "cost_usd", "cost_source", "cost_is_lower_bound", "errors", "failed_tool_calls",
    "started_at", "ended_at", "duration_s", "agent", "format", "models", "project", "steps", "tool_calls",
    "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "files_changed", "lines_added",
    "lines_removed", "commands_run", "commands_failed", "parent", "page",
)
# A spreadsheet runs a cell that starts like a formula: log text (titles, ids) is made plain text.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value) -> str | int | float:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def sessions_csv(summaries: list[SessionSummary]) -> bytes:
    """One row per session, in the site's order, with the figures of sessions.json."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for s in summaries:
        row = {
            "id": s.id, "title": s.title, "outcome": s.outcome, "cost_usd": s.cost_usd, "cost_source": s.cost_source,
            "cost_is_lower_bound": s.cost_is_lower_bound, "errors": s.errors, "failed_tool_calls": s.failed_tool_calls,
            "started_at": s.started_at, "ended_at": s.ended_at, "duration_s": s.duration_s, "agent": s.agent,
            "format": s.format, "models": "; ".join(s.models), "project": s.project, "steps": s.steps,
            "tool_calls": s.tool_calls, "input_tokens": s.input_tokens, "output_tokens": s.output_tokens,
            "cache_read_tokens": s.cache_read_tokens, "cache_write_tokens": s.cache_write_tokens,
            "files_changed": len(s.files_changed), "lines_added": sum(f["added"] for f in s.files_changed),
            "lines_removed": sum(f["removed"] for f in s.files_changed), "commands_run": s.commands["run"],
            "commands_failed": s.commands["failed"], "parent": s.parent, "page": s.page,
        }
        writer.writerow([_cell(row[column]) for column in CSV_COLUMNS])
    return buffer.getvalue().encode()


_JSON_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS


def sessions_json(summaries: list[SessionSummary], pricing: object, inputs: Inputs) -> bytes:
    """The document dumped a session at a time: as one document, every session's dict was
    held at once beside the bytes (the large benchmark corpus, 3,000 sessions: 36 MiB at the
    site-wide files' peak, for 9 MB written). "sessions", last of the sorted keys, is spliced
    in, each session's lines indented by its depth (two levels: JSON strings hold no line break)."""
    head = orjson.dumps({
        "generator": f"replay-site {__version__}",
        "inputs": inputs.to_json(),
        "pricing": pricing,
        "sessions": [],
    }, option=_JSON_OPTIONS)
    if not summaries:
        return head
    document = io.BytesIO()
    document.write(head.removesuffix(b"[]\n}") + b"[\n")
    for number, summary in enumerate(summaries):
        document.write(b",\n    " if number else b"    ")
        document.write(orjson.dumps(summary.to_json(), option=_JSON_OPTIONS).replace(b"\n", b"\n    "))
    document.write(b"\n  ]\n}")
    return document.getvalue()
