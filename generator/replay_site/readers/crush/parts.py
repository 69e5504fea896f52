"""Crush's messages into steps (`internal/message`).

A message row holds its `parts`, a JSON list of {type, data}: `text`, `reasoning`,
`image_url`, `binary`, `tool_call`, `tool_result`, `finish` and (since June 2026, bang mode)
`shell_command`. An assistant message is one model response: its text, reasoning and calls;
the results come in the next message (role `tool`), paired by `tool_call_id`. A tool result's
`metadata` is the tool's JSON: the edit tools keep the file before and after, `write` its
diff; a failed shell command's output ends with "Exit code N".
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from replay_site.diffs import change_from_texts
from replay_site.model import Detail, FileChange, Image, Problem, Session, Step, TodoItem, ToolCall
from replay_site.readers.fields import answered_call, listed, mapping, mark_unanswered, raw_json, string, text
from replay_site.readers.sqlite import json_column
from replay_site.readers.timestamps import parse_time

KNOWN_PARTS = frozenset({"text", "reasoning", "image_url", "binary", "tool_call", "tool_result", "finish", "shell_command"})
SHELL_TOOLS = ("bash",)
EDIT_TOOLS = ("edit", "multiedit")
# Tools whose call runs in a session of its own, `<message id>$$<tool call id>`.
SUBAGENT_TOOLS = ("agent", "agentic_fetch")
_EXIT = re.compile(r"(?:^|\n)Exit code (-?\d+)\s*$")


def tool_call(data: dict[str, Any]) -> ToolCall:
    name = text(data.get("name")) or "tool"
    raw = data.get("input")
    parsed = json_column(raw)
    arguments = parsed if isinstance(parsed, dict) else (raw if isinstance(raw, str) and raw else None)
    call = ToolCall(name, id=string(data.get("id")), arguments=arguments)
    fields = arguments if isinstance(arguments, dict) else {}
    if name in SHELL_TOOLS and isinstance(fields.get("command"), str):
        call.code, call.language = fields["command"], "bash"
    if name == "todos":
        call.todos = [TodoItem(text(todo.get("content")), text(todo.get("status")) or "pending")
                      for todo in listed(fields.get("todos")) if isinstance(todo, dict)]
    return call


def put_result(call: ToolCall, data: dict[str, Any]) -> None:
    call.output = text(data.get("content"))
    call.is_error = data.get("is_error") is True
    if string(data.get("data")) and string(data.get("mime_type")) and text(data.get("mime_type")).startswith("image/"):
        call.images.append(Image(data["mime_type"], data["data"]))
    if call.language == "bash" and (found := _EXIT.search(call.output or "")):
        call.exit_code = int(found.group(1))
        call.is_error = call.is_error or call.exit_code != 0
    if not call.is_error:
        call.changes = _changes(call, mapping(json_column(data.get("metadata"))))


def _changes(call: ToolCall, metadata: dict[str, Any]) -> list[FileChange]:
    path = string(mapping(call.arguments).get("file_path")) if isinstance(call.arguments, dict) else None
    if not path:
        return []
    old, new = metadata.get("old_content"), metadata.get("new_content")
    if call.name in EDIT_TOOLS and isinstance(new, str):
        return [change_from_texts(path, old if isinstance(old, str) and old else None, new)]
    diff = metadata.get("diff")
    if call.name == "write" and isinstance(diff, str) and "@@" in diff:
        kind = "add" if metadata.get("removals") == 0 and "\n-" not in diff.split("@@", 1)[1] and "/dev/null" in diff else "modify"
        return [FileChange(path, kind, diff)]
    return []


@dataclass
class Builder:
    """One session's messages into its steps, every part counted."""

    session: Session
    calls: dict[str, ToolCall] = field(default_factory=dict)
    answered: set[int] = field(default_factory=set)
    last_finish: str = ""  # the reason the last response ended

    def build(self, messages: list[dict[str, Any]], where: str) -> None:
        for row in messages:
            role = text(row.get("role"))[:40] or "(no role)"
            parts = json_column(row.get("parts"))
            label = f"{where}: message {row.get('id')}"
            if not isinstance(parts, list):
                self.session.count_record(f"message/{role}", "unknown")
                self.session.problems.append(Problem("bad_line", "a message whose parts are not a JSON list, skipped", label))
                continue
            self.session.count_record(f"message/{role}")
            if role in ("user", "assistant", "tool", "system"):
                self._message(row, role, parts, label)
            else:
                self.session.not_understood(f"message/{role}")
                self.session.problems.append(Problem("unknown_event", f"unknown Crush message role {role!r}", label))
                self.session.steps.append(Step("event", title=f"Unknown message: {role}", timestamp=parse_time(row.get("created_at")),
                                               details=[Detail("Raw parts", raw_json(parts, indent=True), "json")]))
        mark_unanswered(self.calls.values(), self.answered)

    def _message(self, row: dict[str, Any], role: str, parts: list[Any], label: str) -> None:
        when = parse_time(row.get("created_at"))
        kind = {"user": "user", "assistant": "assistant", "system": "context"}.get(role)
        step = Step(kind, timestamp=when, model=string(row.get("model"))) if kind else None
        if step is not None and role == "assistant" and row.get("is_summary_message") == 1:
            step.kind, step.title, step.collapsed = "context", "Summary of the conversation so far", True
        texts, thoughts = [], []
        for part in parts:
            part = mapping(part)
            name, data = text(part.get("type"))[:40] or "(no type)", mapping(part.get("data"))
            self.session.count_record(f"part/{name}", "not_shown" if name == "finish" and data.get("reason") != "error" else "shown")
            if name == "text":
                texts.append(text(data.get("text")))
            elif name == "reasoning":
                thoughts.append(text(data.get("thinking")))
            elif name == "tool_result":
                call, orphan = answered_call(self.calls, self.answered, string(data.get("tool_call_id")), text(data.get("name")) or "tool")
                put_result(call, data)
                if orphan:
                    self.session.steps.append(Step("event", timestamp=when, title="Result of a call not in the log", tool_calls=[call]))
            elif step is None:  # a part a tool message never holds
                self._unknown(name, part, label, None)
            elif name == "tool_call":
                call = tool_call(data)
                step.tool_calls.append(call)
                if call.id:
                    self.calls[call.id] = call
            elif name == "image_url" and string(data.get("url")):
                texts.append(f"[image: {text(data.get('url'))[:200]}]")
            elif name == "binary":
                self._binary(step, data, texts)
            elif name == "finish":
                self._finish(step, data)
            elif name == "shell_command":
                self._shell(when, data)
            elif name not in KNOWN_PARTS:
                self._unknown(name, part, label, step)
        if step is not None and (texts or thoughts or step.tool_calls or step.error or role != "user"):
            step.text, step.thinking = "\n\n".join(filter(None, texts)), "\n\n".join(filter(None, thoughts))
            self.session.steps.append(step)

    @staticmethod
    def _binary(step: Step, data: dict[str, Any], texts: list[str]) -> None:
        """An attachment (Go's default field names: Path, MIMEType, Data base64)."""
        media, payload = text(data.get("MIMEType")), string(data.get("Data"))
        if media.startswith("image/") and payload:
            step.images.append(Image(media, payload))
        else:
            texts.append(f"[file: {text(data.get('Path'))}]")

    def _finish(self, step: Step, data: dict[str, Any]) -> None:
        reason = text(data.get("reason"))
        if reason == "error":
            step.error = "\n\n".join(filter(None, (text(data.get("message")), text(data.get("details"))))) or "error"
        elif reason == "canceled":
            step.details.append(Detail("Stopped", "Canceled by the user"))
        self.last_finish = reason

    def _shell(self, when: Any, data: dict[str, Any]) -> None:
        """A command the user ran with `!` (bang mode): its output went into the conversation."""
        call = ToolCall("shell", code=text(data.get("command")), language="bash", output=text(data.get("output")))
        exit_code = data.get("exit_code")
        if isinstance(exit_code, int) and not isinstance(exit_code, bool):
            call.exit_code, call.is_error = exit_code, exit_code != 0
        self.answered.add(id(call))
        self.session.steps.append(Step("event", timestamp=when, title="Shell command run by the user", tool_calls=[call]))

    def _unknown(self, name: str, part: dict[str, Any], label: str, step: Step | None) -> None:
        self.session.not_understood(f"part/{name}")
        self.session.problems.append(Problem("unknown_event", f"unknown Crush part type {name!r}", label))
        detail = Detail(f"Unknown part: {name}", raw_json(part, indent=True), "json")
        if step is not None:
            step.details.append(detail)
        else:
            self.session.steps.append(Step("event", title=f"Unknown part: {name}", details=[detail]))
