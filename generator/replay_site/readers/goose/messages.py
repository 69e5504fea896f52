"""Goose messages into steps (crates/goose `conversation/message.rs`).

A message is `{role, created, content: [...]}`; its content items are tagged by `type`:
`text`, `image`, `thinking`, `redactedThinking`, `toolRequest` (`toolCall`: `{status:
"success", value: {name, arguments}}` or `{status: "error", error}`), `toolResponse` (in a
user-role message: `toolResult`, `{status: "success", value: {content, isError}}` (an older
value is the content list itself) or `{status: "error", error}`), `toolConfirmationRequest`,
`actionRequired`, `frontendToolRequest`, `systemNotification`. Goose records no tokens per
message: a session holds only its running totals (`accumulated_*_tokens`), read once.
"""
from __future__ import annotations

from typing import Any

from replay_site.diffs import change_from_texts
from replay_site.model import Detail, FileChange, Image, Problem, Session, Step, ToolCall
from replay_site.readers.fields import answered_call, mapping, mark_unanswered, raw_json, string
from replay_site.readers.fields import text as as_text
from replay_site.readers.timestamps import parse_time

KNOWN = frozenset({"text", "image", "thinking", "redactedThinking", "toolRequest", "toolResponse",
                   "toolConfirmationRequest", "actionRequired", "frontendToolRequest", "systemNotification"})


def _texts(items: Any) -> str:
    """The text of an MCP content list."""
    if not isinstance(items, list):
        return as_text(items)
    return "\n".join(as_text(item.get("text")) for item in items if isinstance(item, dict) and item.get("type") == "text")


def file_changes(name: str, arguments: dict[str, Any]) -> list[FileChange]:
    """The developer extension's text editor: `write` (file_text) and `str_replace`."""
    if not name.endswith("text_editor"):
        return []
    path, command = string(arguments.get("path")), arguments.get("command")
    if path and command == "write" and isinstance(arguments.get("file_text"), str):
        return [change_from_texts(path, None, arguments["file_text"])]
    if path and command == "str_replace" and isinstance(arguments.get("old_str"), str) and isinstance(arguments.get("new_str"), str):
        return [change_from_texts(path, arguments["old_str"], arguments["new_str"])]
    return []


class Builder:
    def __init__(self, session: Session, model: str | None) -> None:
        self.session = session
        self.model = model
        self.calls: dict[str, ToolCall] = {}
        self.answered: set[int] = set()

    def add(self, message: dict[str, Any], where: str) -> None:
        role = string(message.get("role")) or "(no role)"
        content = message.get("content") if isinstance(message.get("content"), list) else []
        step = Step("assistant" if role == "assistant" else "user", timestamp=parse_time(message.get("created")),
                    model=self.model if role == "assistant" else None)
        texts: list[str] = []
        for item in content:
            item = mapping(item)
            kind = string(item.get("type")) or "(no type)"
            if kind == "text":
                texts.append(as_text(item.get("text")))
            elif kind == "image" and isinstance(item.get("data"), str):
                step.images.append(Image(string(item.get("mimeType")) or "image/png", item["data"]))
            elif kind == "thinking":
                step.thinking = "\n\n".join(filter(None, (step.thinking, as_text(item.get("thinking")))))
            elif kind in ("toolRequest", "frontendToolRequest"):
                step.tool_calls.append(self._request(item))
            elif kind == "toolResponse":
                orphan = self._response(item)
                if orphan is not None:
                    step.tool_calls.append(orphan)
            elif kind == "systemNotification":
                step.details.append(Detail("Goose", as_text(item.get("msg"))))
            elif kind in ("redactedThinking", "toolConfirmationRequest", "actionRequired"):
                step.details.append(Detail(kind, raw_json(item, indent=True), "json"))
            else:
                self.session.count_record(f"content/{kind}", "unknown")  # an item of a message shown
                self.session.problems.append(Problem("unknown_event", f"unknown Goose content kind {kind!r}", where))
                step.details.append(Detail(f"Unknown content: {kind}", raw_json(item, indent=True), "json"))
        step.text = "\n\n".join(text for text in texts if text)
        if role not in ("user", "assistant"):
            self.session.count_record(f"message/{role}", "unknown")
            self.session.problems.append(Problem("unknown_event", f"unknown Goose message role {role!r}", where))
            step.kind, step.title = "event", f"Unknown message: {role}"
            step.details.append(Detail("Raw message", raw_json(message, indent=True), "json"))
        elif step.text or step.tool_calls or step.thinking or step.images or step.details:
            self.session.count_record(f"message/{role}")
        else:  # a user message of tool results alone: they joined their calls' steps
            self.session.count_record(f"message/{role} (tool results)")
            return
        if role == "user" and step.tool_calls and not step.text:
            step.kind, step.title = "context", "Tool results without their calls"
        self.session.steps.append(step)

    def _request(self, item: dict[str, Any]) -> ToolCall:
        call_state = mapping(item.get("toolCall"))
        value = mapping(call_state.get("value"))
        arguments = value.get("arguments")
        call = ToolCall(as_text(value.get("name")) or "tool", id=string(item.get("id")),
                        arguments=arguments if isinstance(arguments, (dict, str)) else None)
        if call_state.get("status") == "error":  # the model's call could not be parsed
            call.is_error, call.output = True, as_text(call_state.get("error"))
            self.answered.add(id(call))
        if call.name.endswith("shell") and isinstance(arguments, dict) and isinstance(arguments.get("command"), str):
            call.code, call.language = arguments["command"], "bash"
        if call.id:
            self.calls[call.id] = call
        return call

    def _response(self, item: dict[str, Any]) -> ToolCall | None:
        call, orphan = answered_call(self.calls, self.answered, string(item.get("id")))
        result = mapping(item.get("toolResult"))
        value = result.get("value")
        if result.get("status") == "error":
            call.is_error, call.output = True, as_text(result.get("error"))
        elif isinstance(value, dict):  # CallToolResult
            call.output, call.is_error = _texts(value.get("content")), value.get("isError") is True
        else:
            call.output = _texts(value)
        if not call.is_error and isinstance(call.arguments, dict):
            call.changes = file_changes(call.name, call.arguments)
        return call if orphan else None

    def finish(self) -> None:
        mark_unanswered(self.calls.values(), self.answered)
