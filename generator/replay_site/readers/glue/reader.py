"""Glue sessions: ~/.glue/sessions/<id>/{meta.json, conversation.jsonl} (FORMATS.md "(b) Glue").

A session is a folder (meta.json optional) or a bare conversation JSONL file.
Rows are transcript-v1 envelopes or legacy unversioned lines, mixed freely; the
step logic lives in steps.py. Subagents become child sessions.

Token accounting (each model response counted once):
- `usage` role main: the assistant step of that response.
- `usage` role title: its own collapsed "Title generation" event step; it is a
  real model call and meta.json's token_count includes it.
- Subagents: the child's inner `usage` events (one per model response, written
  by `serializeAgentEvent`). The aggregate `subagent_usage` row and its copy,
  the parent's `usage` role subagent row (`recordUsage(role: 'subagent')`), are
  the same numbers summed, so they are used only when a child has no inner
  usage rows, and otherwise only checked against the inner sum.

Timestamps: v1 and later legacy rows are UTC (`Z`). The first builds (Feb 2026)
wrote local time without an offset. Those are placed in UTC with the offset
that maps the first such row onto meta.json's UTC `start_time` (rounded to 15
minutes); without that anchor they are read as UTC and a warning says so.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson

from replay_site.model import Fact, Problem, Session, Step, no_records
from replay_site.readers import FileReader, SessionSource, jsonl
from replay_site.readers.fields import count, first_request, string, user_prompts
from replay_site.readers.files import BOM, Head, plain_name
from replay_site.readers.glue.steps import StepBuilder, usage_from
from replay_site.readers.jsonl import KIND_LENGTH
from replay_site.readers.timestamps import parse_time

EVENT_TYPES = frozenset({
    "user_message", "assistant_message", "assistant_thinking", "tool_call", "tool_result", "usage",
    "title_generated", "title_reevaluated", "agent_notice", "subagent_spawned", "subagent_event",
    "subagent_usage", "subagent_completed",
})
META_FACTS = (
    ("reasoning_effort", "Reasoning effort"), ("forked_from", "Forked from"), ("worktree_path", "Worktree"),
    ("base_branch", "Base branch"), ("repo_remote", "Remote"), ("pr_url", "Pull request"),
    ("pr_status", "PR status"), ("title_source", "Title source"), ("summary", "Summary"),
)
MAX_META_BYTES = 1 << 20
CONVERSATION = "conversation.jsonl"


def is_glue_row(row: dict[str, Any] | None) -> bool:
    """Glue rows have `type` (gptme rows have `role`; Claude/Codex use other type names)."""
    if not row or "role" in row or not isinstance(row.get("type"), str):
        return False
    if row.get("schema_version") is not None and "event_id" in row:
        return True
    return row["type"] in EVENT_TYPES and "timestamp" in row


def _is_glue_meta(path: Path, head: Head) -> bool:
    if head.size > MAX_META_BYTES:
        return False
    # A head holds the whole of any small file; a larger meta.json is loaded in full.
    meta = _json_object(head.data) if head.complete else jsonl.load_json(path, [])
    return bool(meta) and "id" in meta and "start_time" in meta and (
        "glue_version" in meta or "model_ref" in meta or "model" in meta
    )


def _json_object(data: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(data.removeprefix(BOM))
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _hidden(folder: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in folder.relative_to(root).parts)


class GlueReader(FileReader):
    name = "glue"
    label = "Glue"
    env_vars = ("HOME",)

    def default_dirs(self) -> list[Path]:
        return [Path.home() / ".glue" / "sessions"]

    def detect(self, path: Path, head: Head) -> str | None:
        """"folder" for a session folder's conversation.jsonl or meta.json, "file" for other Glue JSONL."""
        if path.name == "meta.json":
            return "folder" if _is_glue_meta(path, head) else None
        if (plain_name(path).suffix == ".jsonl" or head.named) and is_glue_row(head.first_object()):
            return "folder" if path.name == CONVERSATION else "file"
        return None

    def group(self, found: dict[Path, str], root: Path) -> list[SessionSource]:
        if not root.is_dir():
            return [SessionSource(self.name, root, root)] if found.get(root) in ("folder", "file") and root.name != "meta.json" else []
        # Hidden folders are not searched, and a session folder's contents all belong to it.
        visible = {path: kind for path, kind in found.items() if not _hidden(path.parent, root)}
        folders: list[Path] = []
        for folder in sorted({path.parent for path, kind in visible.items() if kind == "folder"}):
            if not any(folder.is_relative_to(outer) for outer in folders):
                folders.append(folder)
        loose = [path for path, kind in visible.items() if kind == "file"
                 and not any(path.is_relative_to(folder) for folder in folders)]
        return sorted((SessionSource(self.name, path, root) for path in [*folders, *loose]), key=lambda s: str(s.path))

    def read_sessions(self, source: SessionSource) -> list[Session]:
        return [_read(source)]


def _model_ref(meta: dict[str, Any]) -> str | None:
    if isinstance(meta.get("model_ref"), str) and meta["model_ref"]:
        return meta["model_ref"]
    if isinstance(meta.get("model"), str) and meta["model"]:
        # Schema <= 2: SessionMeta.fromJson joins provider/model, provider defaulting to anthropic.
        provider = meta.get("provider") if isinstance(meta.get("provider"), str) and meta["provider"] else "anthropic"
        return f"{provider}/{meta['model']}"
    return None


def _local_offset(rows: list[tuple[int, dict[str, Any]]], start: datetime | None) -> timedelta | None:
    """The UTC offset of the local-time era's naive timestamps, anchored on meta start_time."""
    first = next((t for _, row in rows if (t := parse_time(row.get("timestamp"))) and t.tzinfo is None), None)
    if first is None or start is None:
        return None
    gap = first.replace(tzinfo=timezone.utc) - start
    offset = timedelta(minutes=15 * round(gap.total_seconds() / 900))
    # Accept only when the first row lands just after the start, as a real session's does.
    return offset if timedelta(0) <= gap - offset <= timedelta(minutes=10) else None


def _read(source: SessionSource) -> Session:
    problems: list[Problem] = []
    if source.path.is_dir():
        folder, conversation = source.path, source.path / "conversation.jsonl"
    else:
        conversation = source.path
        folder = conversation.parent if conversation.name == "conversation.jsonl" else None
    meta_path = folder / "meta.json" if folder else None
    meta = (jsonl.load_json(meta_path, problems, source.label(meta_path)) or {}) if meta_path and meta_path.is_file() else {}
    counted = no_records()
    rows = list(jsonl.iter_objects(conversation, problems, source.label(conversation), counted)) if conversation.is_file() else []

    # A fork's file starts with the parent's rows, copied with the parent's session_id: the
    # fork's own id is meta.json's, else the one its last rows carry.
    last_id = next((row["session_id"] for _, row in reversed(rows) if string(row.get("session_id"))), None)
    fallback_id = conversation.parent.name if conversation.name == "conversation.jsonl" else conversation.stem
    own_id = string(meta.get("id")) or last_id or fallback_id
    copied, rows = _split_copied(rows, own_id)
    model = _model_ref(meta)
    session = Session(
        id=own_id,
        format="glue",
        source=source.rel,
        cwd=string(meta.get("cwd")),
        git_branch=string(meta.get("branch")),
        git_commit=string(meta.get("head_sha")),
        agent_version=string(meta.get("glue_version")),
        project=string(meta.get("project_path")),
        declared_models=[model] if model else [],
        problems=problems,
        records=counted,
    )
    # meta.json times are always written in UTC (toUtc()), even in the local-time era.
    start = parse_time(meta.get("start_time"))
    start = start if start is None or start.tzinfo else start.replace(tzinfo=timezone.utc)
    offset = _local_offset(rows, start)
    naive_seen = False

    def clock(value: Any) -> datetime | None:
        nonlocal naive_seen
        moment = parse_time(value)
        if moment is not None and moment.tzinfo is None:
            naive_seen = True
            moment = (moment - (offset or timedelta(0))).replace(tzinfo=timezone.utc)
        return moment

    root = StepBuilder(session, model, source.label(conversation))
    _Subagents(session, root, model).feed(rows, clock)

    if copied:
        session.steps.insert(0, _copied_step(copied, clock))
        session.number_steps()
    session.title = string(meta.get("title")) or root.latest_title or first_request(user_prompts(session.steps)) or ""
    session.started_at = start or next((s.timestamp for s in session.steps if s.timestamp), None)
    end = parse_time(meta.get("end_time"))
    session.ended_at = (end.replace(tzinfo=timezone.utc) if end and end.tzinfo is None else end) or next(
        (s.timestamp for s in reversed(session.steps) if s.timestamp), None
    )
    status = string(meta.get("termination_status"))
    if status is None and meta:
        status = "completed" if end else "running"  # SessionMeta.fromJson's own default
    session.status = status
    if naive_seen:
        how = f"with UTC offset {offset} taken from meta.json start_time" if offset is not None else "as UTC (offset unknown)"
        root.warn("warning", f"local-time timestamps without an offset (early Glue builds) were read {how}", None)
    _meta_facts(session, meta, source.label(meta_path) if meta_path else "meta.json")
    return session


def _split_copied(rows: list[tuple[int, dict[str, Any]]], own_id: str) -> tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, dict[str, Any]]]]:
    """(copied, own): the leading rows that carry another session's id are the parent's history,
    copied when the fork was made; they are the parent's steps and figures, not the fork's."""
    start = 0
    while start < len(rows):
        other = string(rows[start][1].get("session_id"))
        if other is None or other == own_id:
            break
        start += 1
    return rows[:start], rows[start:]


def _copied_step(copied: list[tuple[int, dict[str, Any]]], clock: Any) -> Step:
    parents = list(dict.fromkeys(row["session_id"] for _, row in copied))
    prompts = [row["text"].strip().splitlines()[0] for _, row in copied
               if row.get("type") == "user_message" and isinstance(row.get("text"), str) and row["text"].strip()]
    lines = [f"{len(copied)} rows of {', '.join(parents)} (lines {copied[0][0]}-{copied[-1][0]}) were copied into this "
             "fork when it was made. They are that session's steps and figures, so they are not counted here."]
    lines.extend(f"- {prompt}" for prompt in prompts)
    return Step("event", timestamp=clock(copied[0][1].get("timestamp")), title=f"Copied from {parents[0]}",
                text="\n".join(lines), collapsed=True)


def _short(text: str) -> str:
    """A one-line title from a prompt: its first line, cut at 80 characters."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 80 else line[:79] + "…"


def _meta_facts(session: Session, meta: dict[str, Any], label: str) -> None:
    for key, name in META_FACTS:
        if value := string(meta.get(key)):
            session.facts.append(Fact(name, value))
    if isinstance(meta.get("tags"), list) and meta["tags"]:
        session.facts.append(Fact("Tags", ", ".join(str(tag) for tag in meta["tags"])))
    recorded = meta.get("token_count")
    if isinstance(recorded, int) and not isinstance(recorded, bool):
        counted = session.usage_with_children.total
        # token_count counts subagents and title generation: the figure to compare is the one
        # with subagents; a difference is said on the page, not only in the build's warnings.
        if counted == recorded:
            session.facts.append(Fact("Tokens (meta.json)", f"{recorded:,} (equal to the tokens counted here with subagents)"))
        elif recorded > counted:
            session.facts.append(Fact("Tokens (meta.json)", f"{recorded:,}: {recorded - counted:,} more than the {counted:,} "
                                      "counted here with subagents (calls whose usage rows are not in this log)"))
        else:
            session.facts.append(Fact("Tokens (meta.json)", f"{recorded:,}: {counted - recorded:,} fewer than the {counted:,} "
                                      "counted here with subagents (meta.json written before the log's last usage rows)"))
        if counted != recorded:
            message = f"token_count {recorded} differs from the {counted} tokens of the usage rows"
            session.problems.append(Problem("warning", message, label))


class _Subagents:
    """Routes a parent log's rows: its own to `root`, subagent rows to child builders."""

    def __init__(self, session: Session, root: StepBuilder, model: str | None) -> None:
        self.session, self.root, self.model = session, root, model
        self.children: dict[str, StepBuilder] = {}
        self.totals: dict[str, Any] = {}  # subagent id -> aggregate Usage (subagent_usage, else role subagent)

    def feed(self, rows: list[tuple[int, dict[str, Any]]], clock: Any) -> None:
        for line, row in rows:
            kind = row.get("type") if isinstance(row.get("type"), str) else "(no type)"
            ts = clock(row.get("timestamp"))
            if kind == "usage":
                self._usage(row, ts)
            elif kind in ("title_generated", "title_reevaluated"):
                self.root.title(kind, row.get("title"), ts)
            elif kind == "subagent_spawned":
                self._spawn(row, ts, line)
            elif kind == "subagent_event":
                self._inner(row, ts, line)
            elif kind == "subagent_usage":
                self._total(row, ts, line, replace=True)
            elif kind == "subagent_completed":
                self._completed(row, ts, line)
            elif not self.root.handle(kind, row, ts, line):
                self.root.unknown(kind, row, ts, line)
                self.session.not_understood(kind[:KIND_LENGTH])
        self._finish()

    def _usage(self, row: dict[str, Any], ts: datetime | None) -> None:
        role = row.get("role") if isinstance(row.get("role"), str) else "main"
        if role == "subagent" or isinstance(row.get("subagent_id"), str):
            self._total(row, ts, None, replace=False)
        elif role == "title":
            self.root.title_usage(usage_from(row), ts, row.get("model_ref"))
        elif role == "main":
            self.root.usage(usage_from(row), ts, row.get("request_id"), row.get("model_ref"))
        else:
            self.root.side_usage(f"Model call ({role})", usage_from(row), ts, row.get("model_ref"))

    def _child(self, subagent_id: str, ts: datetime | None, line: int | None, row: dict[str, Any]) -> StepBuilder:
        if subagent_id in self.children:
            return self.children[subagent_id]
        model = string(row.get("model_ref")) or self.model
        parent_key = string(row.get("parent_subagent_id"))
        parent = self.children.get(parent_key, self.root) if parent_key else self.root
        child = Session(
            id=f"{self.session.id}:sub:{subagent_id}",
            format="glue",
            title=_short(string(row.get("task")) or "") or f"Subagent {subagent_id}",
            source=self.session.source,
            cwd=self.session.cwd,
            started_at=ts,
            declared_models=[model] if model else [],
            parent_id=parent.session.id,
            relation="subagent",
        )
        if row.get("type") != "subagent_spawned":
            self.root.warn("warning", f"subagent {subagent_id!r} has events before its subagent_spawned row", line)
        parent.session.children.append(child)
        parent.link_child(child.id)
        builder = self.children[subagent_id] = StepBuilder(child, model, self.root.label)
        return builder

    def _spawn(self, row: dict[str, Any], ts: datetime | None, line: int) -> None:
        subagent_id = string(row.get("subagent_id")) or f"unnamed-{line}"
        builder = self._child(subagent_id, ts, line, row)
        task = string(row.get("task")) or ""
        builder.handle("user_message", {"text": task}, ts, line)  # the task is the subagent's prompt
        child = builder.session
        for key, label in (("depth", "Depth"), ("index", "Index"), ("total", "Parallel subagents")):
            if isinstance(row.get(key), int):
                child.facts.append(Fact(label, str(row[key])))

    def _inner(self, row: dict[str, Any], ts: datetime | None, line: int) -> None:
        subagent_id = string(row.get("subagent_id")) or "(no id)"
        builder = self._child(subagent_id, ts, line, row)
        inner = row.get("inner")
        if not isinstance(inner, dict):
            builder.unknown("subagent_event without inner", row, ts, line)
            self.session.not_understood("subagent_event/(no inner)", counted_as="subagent_event")
            return
        kind = inner.get("type") if isinstance(inner.get("type"), str) else "(no type)"
        if not builder.handle(kind, inner, ts, line):
            builder.unknown(kind, inner, ts, line)
            # The line is counted as the subagent_event wrapping it, in the file's session.
            self.session.not_understood(f"subagent_event/{kind}"[:KIND_LENGTH], counted_as="subagent_event")

    def _total(self, row: dict[str, Any], ts: datetime | None, line: int | None, replace: bool) -> None:
        subagent_id = string(row.get("subagent_id")) or "(no id)"
        if replace or subagent_id not in self.totals:
            self.totals[subagent_id] = usage_from(row)
        builder = self.children.get(subagent_id)
        if builder is not None and count(row.get("reasoning_tokens")) and replace:
            # Inner usage events omit reasoning tokens; only the aggregate has them.
            builder.session.facts.append(Fact("Reasoning tokens", str(count(row["reasoning_tokens"]))))

    def _completed(self, row: dict[str, Any], ts: datetime | None, line: int) -> None:
        builder = self._child(string(row.get("subagent_id")) or "(no id)", ts, line, row)
        child = builder.session
        child.ended_at = ts
        child.status = string(row.get("status"))
        error = string(row.get("error"))
        if child.status == "failed" and not any(step.error == error for step in child.steps):
            builder.event("Subagent failed", ts, error=error or "subagent failed")

    def _finish(self) -> None:
        for subagent_id, builder in self.children.items():
            total = self.totals.get(subagent_id)
            child = builder.session
            if total and not builder.saw_usage:
                # No per-response rows: the aggregate is the only record, counted once here.
                builder.side_usage("Subagent usage (total)", total, child.ended_at, None).text = (
                    "Total reported by `subagent_usage`; the log has no per-response usage rows."
                )
            elif total and (total.input, total.output, total.cache_read, total.cache_write) != (
                (u := child.usage).input, u.output, u.cache_read, u.cache_write
            ):
                builder.warn("warning", f"subagent_usage total {total.total} differs from its usage events ({u.total})", None)
            builder.finish()
        self.root.finish()


READER = GlueReader()
