"""OpenHands tool calls: an ActionEvent (the call) answered by an ObservationEvent, an
AgentErrorEvent or a UserRejectObservation of the same `tool_call_id`.

An action's fields are the tool's arguments (its `kind` names the Action class); the
observation's `content` is what the model read back, `is_error` says it failed. The terminal
tool's observation has `exit_code` (-1: none, the command was refused or timed out); the
file editor's keeps the file before and after (`old_content`, `new_content`, `prev_exist`);
the task tracker's action holds the whole plan.
"""
from __future__ import annotations

from typing import Any

import orjson

from replay_site.diffs import change_from_texts
from replay_site.model import Image, TodoItem, ToolCall
from replay_site.readers.fields import listed, mapping, string, text

SHELL_TOOLS = ("terminal", "execute_bash", "bash")
EDIT_TOOLS = ("file_editor", "str_replace_editor", "planning_file_editor")
# The task tracker's statuses in the checklist's words.
TODO_STATUS = {"todo": "pending", "in_progress": "in_progress", "done": "completed"}


def arguments_of(event: dict[str, Any]) -> dict[str, Any] | str | None:
    """The call's arguments: the parsed action without its class tag, else the model's own
    argument string (a call OpenHands could not turn into an action)."""
    action = event.get("action")
    if isinstance(action, dict):
        return {key: value for key, value in action.items() if key != "kind"}
    raw = mapping(event.get("tool_call")).get("arguments")
    if isinstance(raw, str):
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw
        return parsed if isinstance(parsed, dict) else raw
    return None


def action_call(event: dict[str, Any]) -> ToolCall:
    name = string(event.get("tool_name")) or string(mapping(event.get("tool_call")).get("name")) or "tool"
    arguments = arguments_of(event)
    call = ToolCall(name, id=string(event.get("tool_call_id")), arguments=arguments)
    fields = arguments if isinstance(arguments, dict) else {}
    if name in SHELL_TOOLS and isinstance(fields.get("command"), str):
        call.code, call.language = fields["command"], "bash"
    if name == "task_tracker" and fields.get("command") == "plan":
        call.todos = [TodoItem(text(item.get("title")), TODO_STATUS.get(text(item.get("status")), "pending"))
                      for item in listed(fields.get("task_list")) if isinstance(item, dict)]
    return call


def content_text(content: Any) -> tuple[str, list[Image]]:
    """A list of TextContent / ImageContent as text and images (data: URLs only)."""
    texts, images = [], []
    for part in listed(content):
        part = mapping(part)
        if part.get("type") == "text":
            texts.append(text(part.get("text")))
        elif part.get("type") == "image":
            for url in listed(part.get("image_urls")):
                if isinstance(url, str) and url.startswith("data:image/") and ";base64," in url:
                    media, _, data = url[5:].partition(";base64,")
                    images.append(Image(media, data))
                else:
                    texts.append(f"[image: {text(url)[:200]}]")
    return "\n".join(texts), images


def observe(call: ToolCall, event: dict[str, Any]) -> None:
    """An ObservationEvent's result put on its call."""
    observation = mapping(event.get("observation"))
    call.output, call.images = content_text(observation.get("content"))
    call.is_error = observation.get("is_error") is True
    if call.language == "bash":
        exit_code = observation.get("exit_code")
        if not isinstance(exit_code, int) or isinstance(exit_code, bool):
            exit_code = mapping(observation.get("metadata")).get("exit_code")
        if isinstance(exit_code, int) and not isinstance(exit_code, bool) and exit_code >= 0:
            call.exit_code = exit_code
            call.is_error = call.is_error or exit_code != 0
    if call.name in EDIT_TOOLS:
        call.changes = _edit(observation)


def _edit(observation: dict[str, Any]) -> list:
    """The file editor's change, from the texts it kept (a view or a failed edit has none)."""
    path, new = string(observation.get("path")), observation.get("new_content")
    if observation.get("is_error") is True or not path or not isinstance(new, str):
        return []
    if observation.get("command") not in ("create", "str_replace", "insert", "undo_edit"):
        return []
    old = observation.get("old_content")
    before = old if isinstance(old, str) and observation.get("prev_exist") is not False else None
    return [change_from_texts(path, before, new)]


def fail(call: ToolCall, event: dict[str, Any]) -> None:
    """An AgentErrorEvent: the call could not run (bad arguments, a tool that raised)."""
    call.output, call.is_error = text(event.get("error")) or "error", True


def reject(call: ToolCall, event: dict[str, Any]) -> None:
    """A UserRejectObservation: the user (or a hook) refused the call; it never ran."""
    source = string(event.get("rejection_source")) or "user"
    call.output = f"Rejected by the {source}: {text(event.get('rejection_reason'))}".rstrip(": ")
