"""A format change caught by its fields, not only by a new kind: for the record kinds each reader
reads, the fields it relies on and the types their producers' published types give them (Claude
Code's transcript and SDK message types, Codex's RolloutLine / EventMsg / ResponseItem, Glue's v1
event schema, gptme's Message, rlm-code's event dataclasses). A field renamed (a required one
missing) or retyped (a count turned string, which the figures would read as 0) is a finding
naming its file, line and field. Only `formats --check` looks: a build tolerates it as before."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replay_site.readers.codex.shapes import line_kind as codex_kind
from replay_site.readers.jsonl import kind_of

NUMBER = (int, float)
OBJECT, LIST, TEXT, NULL = (dict,), (list,), (str,), (type(None),)
# A field: (dotted path, the types it may have, whether a line of its kind must have it). A
# path below an absent or mistyped object is not looked at.
Field = tuple[str, tuple[type, ...], bool]

_CLAUDE_USAGE: tuple[Field, ...] = (
    ("message.usage", OBJECT, False), ("message.usage.input_tokens", (int,), True),
    ("message.usage.output_tokens", (int,), True), ("message.usage.cache_read_input_tokens", (int,), False),
    ("message.usage.cache_creation_input_tokens", (int,), False),
)
_CODEX_TOKENS: tuple[Field, ...] = tuple(
    (f"payload.info.{which}.{count}", (int,), True)
    for which in ("total_token_usage",) for count in ("input_tokens", "output_tokens")
) + (("payload.info", OBJECT + NULL, True), ("payload.info.total_token_usage", OBJECT, True),
   ("payload.info.last_token_usage", OBJECT + NULL, False))

FIELDS: dict[str, dict[str, tuple[Field, ...]]] = {
    "claude": {
        "user": (("message", OBJECT, True), ("message.content", TEXT + LIST, True), ("timestamp", TEXT, False),
                 ("sessionId", TEXT, False), ("promptSource", TEXT, False)),
        "assistant": (("message", OBJECT, True), ("message.content", TEXT + LIST, True), ("message.model", TEXT, False),
                      ("message.id", TEXT, False), ("effort", TEXT, False), *_CLAUDE_USAGE),
        "system": (("subtype", TEXT, False), ("content", TEXT, False)),
        "summary": (("summary", TEXT, True), ("leafUuid", TEXT, False)),
        "custom-title": (("customTitle", TEXT, True),),
        "ai-title": (("aiTitle", TEXT, True),),
        "mode": (("mode", TEXT, True),),
        "permission-mode": (("permissionMode", TEXT, True),),
        "pr-link": (("prUrl", TEXT, True), ("prNumber", (int,), False)),
    },
    "codex": {
        "session_meta": (("payload.id", TEXT, True), ("payload.timestamp", TEXT, False), ("payload.cli_version", TEXT, False),
                         ("payload.cwd", TEXT, False)),
        "turn_context": (("payload.model", TEXT, False), ("payload.cwd", TEXT, False)),
        "response_item/message": (("payload.role", TEXT, True), ("payload.content", LIST + TEXT, True)),
        "response_item/function_call": (("payload.name", TEXT, True), ("payload.arguments", TEXT + OBJECT, True),
                                        ("payload.call_id", TEXT, True)),
        "response_item/function_call_output": (("payload.call_id", TEXT, True), ("payload.output", TEXT + LIST + OBJECT, False)),
        "response_item/custom_tool_call": (("payload.name", TEXT, True), ("payload.input", TEXT, False),
                                           ("payload.call_id", TEXT, True)),
        "event_msg/token_count": _CODEX_TOKENS,
        "event_msg/user_message": (("payload.message", TEXT, True),),
        "event_msg/agent_message": (("payload.message", TEXT, True),),
        "event_msg/exec_command_end": (("payload.call_id", TEXT, True), ("payload.exit_code", (int,), False)),
        "event_msg/dynamic_tool_call_response": (("payload.call_id", TEXT, True), ("payload.success", (bool,), False),
                                                 ("payload.content_items", LIST, False)),
        "event_msg/image_generation_end": (("payload.call_id", TEXT, True), ("payload.status", TEXT, False)),
    },
    "gptme": {
        "user": (("content", TEXT, True), ("timestamp", TEXT, False)),
        "assistant": (("content", TEXT, True), ("timestamp", TEXT, False), ("metadata", OBJECT, False),
                      ("metadata.usage", OBJECT, False), ("metadata.cost", NUMBER, False)),
        "system": (("content", TEXT, True),),
    },
    "glue": {
        "user_message": (("text", TEXT, True), ("timestamp", TEXT + NUMBER, True)),
        "assistant_message": (("text", TEXT, True), ("timestamp", TEXT + NUMBER, True)),
        "tool_call": (("name", TEXT, True), ("id", TEXT, False), ("arguments", OBJECT + TEXT, False)),
        "usage": (("input_tokens", (int,), True), ("output_tokens", (int,), True), ("cache_read_tokens", (int,), False)),
    },
    "rlm": {
        "step": (("step", (int,), True), ("action", OBJECT, False), ("observation", OBJECT, False), ("reward", NUMBER + NULL, False)),
        "model.response": (("data", OBJECT, True), ("data.response", OBJECT, False), ("data.response.usage", OBJECT, False),
                           ("data.response.usage.input_tokens", (int,), True), ("data.response.usage.output_tokens", (int,), True)),
        "python.finished": (("data.tool_call_id", TEXT, True), ("data.result", OBJECT, True)),
        "llm_response": (("data", OBJECT, True), ("data.tokens_in", NUMBER, False), ("data.tokens_out", NUMBER, False)),
    },
}
_ABSENT = object()
_TYPE_NAMES = {dict: "object", list: "list", str: "string", int: "integer", float: "number", bool: "boolean",
               type(None): "null"}


def line_kind(format_name: str) -> Callable[[dict[str, Any]], str | None]:
    """How a format's lines are kinded for FIELDS (a Codex line by its envelope and payload type,
    gptme's by role, rlm's by event type or type, the others by `type`)."""
    if format_name == "codex":
        return codex_kind
    if format_name == "gptme":
        return lambda obj: obj.get("role") if isinstance(obj.get("role"), str) else None
    if format_name == "rlm":
        return lambda obj: obj.get("event_type") if isinstance(obj.get("event_type"), str) else kind_of(obj)
    return kind_of


def field_findings(format_name: str, obj: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(kind, field, what is wrong) for each field of this line that does not fit its kind."""
    kind = line_kind(format_name)(obj)
    found = []
    for path, types, required in FIELDS.get(format_name, {}).get(kind or "", ()):
        value = _at(obj, path)
        if value is _ABSENT:
            if required and _parent(obj, path) is not _ABSENT:
                found.append((kind, path, "missing"))
        elif not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            wanted = " or ".join(_TYPE_NAMES.get(each, each.__name__) for each in types)
            found.append((kind, path, f"expected {wanted}, found {_TYPE_NAMES.get(type(value), type(value).__name__)}"))
    return found


def _at(obj: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(obj, dict) or key not in obj:
            return _ABSENT
        obj = obj[key]
    return obj


def _parent(obj: Any, path: str) -> Any:
    """The object a path's last key would be in (the line itself for a top-level field)."""
    head = path.rpartition(".")[0]
    parent = _at(obj, head) if head else obj
    return parent if isinstance(parent, dict) else _ABSENT
