"""Hermes's message rows into steps (`hermes_state_messages.py`, `run_agent.py`).

A row is one OpenAI-style chat message: `role` user, assistant, tool or system, `content`
(text, or multimodal parts as JSON behind a "\\x00json:" / "\\x01json:" sentinel),
`tool_calls` (JSON, `[{id, function: {name, arguments}}]`) on an assistant row, and
`tool_call_id` / `tool_name` on the tool row that answers one. Tools answer in JSON: the
terminal's `{output, exit_code, error}`, others `{success, error, diff, …}`. A row taken back
by a rewind has `active` 0 (kept, folded); rows archived by a compaction have `compacted` 1,
and the summary that replaced them `_compressed_summary` 1.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from replay_site.diffs import change_from_texts
from replay_site.model import Detail, FileChange, Image, Problem, Session, Step, TodoItem, ToolCall
from replay_site.readers.fields import abandon, answered_call, listed, mapping, mark_unanswered, raw_json, string, text
from replay_site.readers.sqlite import json_column
from replay_site.readers.timestamps import parse_time

CONTENT_PREFIXES = ("\x00json:", "\x01json:")
# Rows Hermes keeps for itself (session metadata beside the transcript): counted, not shown.
BOOKKEEPING_ROLES = frozenset({"session_meta"})
SHELL_TOOLS = ("terminal",)
THINK = re.compile(r"\s*<think>(.*?)</think>", re.DOTALL)


def content_of(value: Any) -> tuple[str, list[Image]]:
    """A row's content as text and images."""
    if isinstance(value, str) and value.startswith(CONTENT_PREFIXES):
        value = json_column(value.split(":", 1)[1])
    if value is None:
        return "", []
    if not isinstance(value, list):
        return text(value), []
    texts, images = [], []
    for part in value:
        part = mapping(part)
        url = text(mapping(part.get("image_url")).get("url")) if part.get("type") == "image_url" else ""
        if url.startswith("data:image/") and ";base64," in url:
            media, _, data = url[5:].partition(";base64,")
            images.append(Image(media, data))
        elif url:
            texts.append(f"[image: {url[:200]}]")
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    return "\n".join(texts), images


def _think_tags(said: str) -> tuple[str, str]:
    """A reply's leading <think>…</think> (how a snapshot writes the reasoning scratchpad) apart
    from the reply."""
    match = THINK.match(said)
    return (match.group(1).strip(), said[match.end():].lstrip()) if match else ("", said)


def tool_call(record: dict[str, Any]) -> ToolCall:
    function = mapping(record.get("function"))
    name = text(function.get("name")) or text(record.get("name")) or "tool"
    raw = function.get("arguments")
    parsed = json_column(raw) if isinstance(raw, str) else raw
    arguments = parsed if isinstance(parsed, dict) else (raw if isinstance(raw, str) and raw else None)
    call = ToolCall(name, id=string(record.get("id")) or string(record.get("call_id")), arguments=arguments)
    fields = arguments if isinstance(arguments, dict) else {}
    if name in SHELL_TOOLS and isinstance(fields.get("command"), str):
        call.code, call.language = fields["command"], "bash"
    if name == "todo" and isinstance(fields.get("todos"), list):
        call.todos = [TodoItem(text(todo.get("content")), text(todo.get("status")) or "pending")
                      for todo in fields["todos"] if isinstance(todo, dict)]
    return call


def put_result(call: ToolCall, content: Any) -> None:
    """A tool row's content on its call: the tool's JSON read for its exit code, error, diff."""
    output, images = content_of(content)
    call.output, call.images = output, images
    result = mapping(json_column(output))
    if call.language == "bash" and isinstance(result.get("output"), str):
        call.output = result["output"] + (f"\n{text(result.get('error'))}" if result.get("error") else "")
    exit_code = result.get("exit_code")
    if isinstance(exit_code, int) and not isinstance(exit_code, bool) and exit_code >= 0:
        call.exit_code = exit_code
    call.is_error = bool(result.get("error")) or result.get("success") is False or (call.exit_code or 0) != 0
    if not call.is_error:
        call.changes = _changes(call, result)


def _changes(call: ToolCall, result: dict[str, Any]) -> list[FileChange]:
    fields = call.arguments if isinstance(call.arguments, dict) else {}
    path = string(fields.get("path")) or string(result.get("path"))
    if not path:
        return []
    diff = result.get("diff")
    if isinstance(diff, str) and "@@" in diff:
        return [FileChange(path, "modify", diff)]
    old, new = fields.get("old_string"), fields.get("new_string")
    if call.name == "patch" and isinstance(old, str) and isinstance(new, str):
        return [change_from_texts(path, old or None, new)]
    return []


@dataclass
class Builder:
    session: Session
    where: str
    calls: dict[str, ToolCall] = field(default_factory=dict)
    answered: set[int] = field(default_factory=set)

    def build(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            role = text(row.get("role"))[:40] or "(no role)"
            if role in BOOKKEEPING_ROLES:
                self.session.count_record(f"message/{role}", "not_shown")
                continue
            self.session.count_record(f"message/{role}")
            step = self._row(row, role)
            if step is None:
                continue
            if row.get("active") == 0:
                abandon(step, "compacted" if row.get("compacted") == 1 else "rewound")
            self.session.steps.append(step)
        mark_unanswered(self.calls.values(), self.answered)

    def _row(self, row: dict[str, Any], role: str) -> Step | None:
        when = parse_time(row.get("timestamp"))
        said, images = content_of(row.get("content"))
        if role == "user":
            if row.get("_compressed_summary") == 1:
                return Step("context", timestamp=when, title="Summary of the conversation so far", text=said, collapsed=True)
            return Step("user", timestamp=when, text=said, images=images)
        if role == "assistant":
            thought, said = _think_tags(said)
            thinking = text(row.get("reasoning_content")) or text(row.get("reasoning")) or thought
            step = Step("assistant", timestamp=when, text=said, thinking=thinking, images=images, model=self.session_model)
            calls = row.get("tool_calls")  # JSON in a database row, a list in an export or a snapshot
            for record in listed(calls if isinstance(calls, list) else json_column(calls)):
                if isinstance(record, dict):
                    call = tool_call(record)
                    step.tool_calls.append(call)
                    if call.id:
                        self.calls[call.id] = call
            if row.get("finish_reason") == "error":
                step.error = said or "error"
            return step
        if role == "tool":
            call, orphan = answered_call(self.calls, self.answered, string(row.get("tool_call_id")), text(row.get("tool_name")) or "tool")
            put_result(call, row.get("content"))
            return Step("event", timestamp=when, title="Result of a call not in the log", tool_calls=[call]) if orphan else None
        if role == "system":
            return Step("context", timestamp=when, title="System message", collapsed=True, details=[Detail("System message", said)])
        self.session.not_understood(f"message/{role}")
        self.session.problems.append(Problem("unknown_event", f"unknown Hermes message role {role!r}", f"{self.where}: message {row.get('id')}"))
        return Step("event", timestamp=when, title=f"Unknown message: {role}",
                    details=[Detail("Raw row", raw_json({key: value for key, value in row.items() if key != "display_identity"}, indent=True), "json")])

    @property
    def session_model(self) -> str | None:
        return self.session.declared_models[0] if self.session.declared_models else None
