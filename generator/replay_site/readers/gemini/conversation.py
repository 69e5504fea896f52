"""Gemini CLI's message records (ChatRecordingService's MessageRecord) -> steps.

A record is one message: `type` user, gemini (a model response: its `content`, `thoughts`,
`toolCalls` with their results, `tokens`, `model`), info, warning or error; each has an `id`.
Tool calls are recorded on the model message that made them, each with its `result` (the
functionResponse parts sent back), `status` and `resultDisplay` (text, or a FileDiff for
edits); a subagent's call names it by `agentId`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from replay_site.model import Detail, Session, Step, TodoItem, ToolCall
from replay_site.readers.fields import abandon, listed, mapping, raw_json, string, text
from replay_site.readers.gemini.parts import content, exit_code, file_changes, response_output, usage_of
from replay_site.readers.timestamps import utc_time

# Statuses of a call that never finished (the session ended or was cut while it ran).
_UNFINISHED = ("validating", "scheduled", "executing", "awaiting_approval")
_FAILED = ("error", "cancelled")
SHELL_TOOLS = ("run_shell_command", "shell")
NOTICE_KINDS = ("info", "warning", "error")


@dataclass
class Entry:
    """One message as the log left it: its last version, the line it was first written on,
    and whether a rewind took it back."""

    line: int | None
    record: dict[str, Any]
    rewound: bool = False


def message_steps(session: Session, entries: list[Entry]) -> list[Step]:
    steps = []
    for entry in entries:
        step = _step(session, entry)
        if entry.rewound:
            abandon(step, "rewound")
        steps.append(step)
    return steps


def _step(session: Session, entry: Entry) -> Step:
    record = entry.record
    kind = record.get("type")
    when = utc_time(record.get("timestamp"))
    if kind == "user":
        shown = record.get("displayContent") if record.get("displayContent") not in (None, "", []) else record.get("content")
        parts = content(shown)
        return Step(kind="user", timestamp=when, text=parts.text, images=parts.images)
    if kind == "gemini":
        return _model_step(record, when)
    if kind in NOTICE_KINDS:
        message = content(record.get("content")).text
        if kind == "error":
            return Step(kind="event", timestamp=when, title="error", error=message or "error")
        return Step(kind="event", timestamp=when, title=kind, text=message)
    session.warn("unknown_event", f"unknown message type {text(kind)[:40]!r}, shown as a raw record", entry.line)
    session.not_understood(text(kind)[:40] or "(no type)")
    return Step(kind="event", timestamp=when, title=f"message of type {text(kind)[:40]!r}",
                details=[Detail("raw record", raw_json(record, indent=True), "json")])


def _model_step(record: dict[str, Any], when: Any) -> Step:
    parts = content(record.get("content"))
    thoughts = [_thought(thought) for thought in listed(record.get("thoughts")) if isinstance(thought, dict)]
    thinking = "\n\n".join(part for part in [*thoughts, parts.thinking] if part)
    step = Step(kind="assistant", timestamp=when, model=string(record.get("model")), text=parts.text, thinking=thinking,
                images=parts.images, usage=usage_of(record.get("tokens")))
    calls = record.get("toolCalls")
    step.tool_calls = [tool_call(call) for call in calls if isinstance(call, dict)] if isinstance(calls, list) else []
    step.child_session_ids = [call.child_session_id for call in step.tool_calls if call.child_session_id]
    return step


def _thought(thought: dict[str, Any]) -> str:
    subject, description = text(thought.get("subject")), text(thought.get("description"))
    return f"**{subject}** {description}".strip() if subject else description


def tool_call(record: dict[str, Any]) -> ToolCall:
    args = mapping(record.get("args"))
    call = ToolCall(name=string(record.get("name")) or "?", id=string(record.get("id")),
                    arguments=args if isinstance(record.get("args"), dict) else None)
    if call.name in SHELL_TOOLS and string(args.get("command")):
        call.code, call.language = args["command"], "bash"
    if call.name == "write_todos":
        call.todos = [TodoItem(text(todo.get("description")), text(todo.get("status")) or "pending")
                      for todo in listed(args.get("todos")) if isinstance(todo, dict)]
    status = string(record.get("status")) or ""
    result = record.get("result")
    output, failed = _result_output(result)
    display = record.get("resultDisplay")
    if output is None and isinstance(display, str):
        output = display
    call.output = output
    call.is_error = failed or status in _FAILED
    if status == "cancelled" and not output:
        call.output = "(cancelled)"
    call.changes = file_changes(display, args)
    if call.language == "bash":
        call.exit_code = exit_code(output)
    call.child_session_id = string(record.get("agentId"))
    call.missing_result = output is None and status in _UNFINISHED and call.child_session_id is None
    return call


def _result_output(result: Any) -> tuple[str | None, bool]:
    """The output of a call's recorded result (its functionResponse parts), and whether it is an error."""
    if result is None:
        return None, False
    parts = content(result)
    if not parts.responses:
        return parts.text, False
    outputs, failed = [], False
    for response in parts.responses:
        output, error = response_output(response)
        failed = failed or error
        if output is not None:
            outputs.append(output)
    if parts.text:
        outputs.append(parts.text)
    return "\n".join(outputs), failed
