"""Cursor's agent CLI: `~/.cursor/chats/<md5 of the workspace>/<agent id>/store.db` (store.py
reads it). Messages are the AI SDK's: `user` (text parts; Cursor wraps the request in
`<user_query>` after context blocks of its own), `assistant` (text, `reasoning`, `tool-call`
{toolCallId, toolName, args}), `tool` (`tool-result` {toolCallId, toolName, result}),
`system`. The store keeps no token counts.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from replay_site.diffs import change_from_texts
from replay_site.model import Detail, FileChange, Session, Step, ToolCall
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.cursor.store import read_store
from replay_site.readers.fields import answered_call, first_request, mapping, mark_unanswered, raw_json, string, user_prompts
from replay_site.readers.fields import text as as_text
from replay_site.readers.files import Head
from replay_site.readers.sqlite import SQLITE_MAGIC
from replay_site.readers.timestamps import parse_time

STORE = "store.db"
# Its metadata is hex-encoded, so the head shows the schema's text, not its field names.
SCHEMA = b"CREATE TABLE blobs"
QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)
EXIT_CODE = re.compile(r"^Exit code: (-?\d+)")


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [part for part in content if isinstance(part, dict)] if isinstance(content, list) else []


def file_changes(arguments: dict[str, Any]) -> list[FileChange]:
    path = string(arguments.get("path")) or string(arguments.get("file_path")) or string(arguments.get("target_file"))
    old = next((arguments[key] for key in ("old_string", "oldString", "old_str") if isinstance(arguments.get(key), str)), None)
    new = next((arguments[key] for key in ("new_string", "newString", "new_str") if isinstance(arguments.get(key), str)), None)
    if path and old is not None and new is not None:
        return [change_from_texts(path, old or None, new)]
    contents = next((arguments[key] for key in ("contents", "content", "file_text") if isinstance(arguments.get(key), str)), None)
    return [change_from_texts(path, None, contents)] if path and contents is not None else []


class CursorReader(FileReader):
    name = "cursor"
    label = "Cursor agent CLI"
    env_vars = ()  # cursor-agent documents no variable that moves ~/.cursor

    def default_dirs(self) -> list[Path]:
        return [Path.home() / ".cursor" / "chats"]

    def detect(self, path: Path, head: Head) -> bool | None:
        if path.suffix != ".db" or not head.data.startswith(SQLITE_MAGIC) or SCHEMA not in head.data:
            return None
        return True if path.name == STORE or head.named else None

    def group(self, found: dict[Path, bool], root: Path) -> Iterator[SessionSource]:
        for path in sorted(found):
            wal = path.with_name(path.name + "-wal")
            yield SessionSource(self.name, path, root, (wal,) if wal.is_file() else ())

    def read_sessions(self, source: SessionSource) -> list[Session]:
        meta, messages, left_out, problems = read_store(source.path, source.rel)
        session = Session(id=string(meta.get("agentId")) or source.path.parent.name, format=self.name, source=source.rel,
                          problems=problems, started_at=parse_time(meta.get("createdAt")))
        session.count_record("metadata", "not_shown")
        if left_out:
            session.count_record("message of an earlier state", "not_shown", left_out)
        model = string(meta.get("lastUsedModel"))
        calls: dict[str, ToolCall] = {}
        answered: set[int] = set()
        for message in messages:
            _add(session, message, model, calls, answered)
        mark_unanswered(calls.values(), answered)
        name = string(meta.get("name"))
        session.title = (name if name and name != "New Agent" else None) or first_request(user_prompts(session.steps)) or session.id
        session.number_steps()
        return [session]


READER = CursorReader()


def _add(session: Session, message: dict[str, Any], model: str | None, calls: dict[str, ToolCall], answered: set[int]) -> None:
    role = message["role"]
    session.count_record(f"message/{role}")
    parts = _parts(message.get("content"))
    if role == "user":
        step = Step("user")
        for part in parts:
            text = as_text(part.get("text"))
            query = QUERY.search(text)
            if query:
                step.text = "\n\n".join(filter(None, (step.text, query.group(1))))
                rest = QUERY.sub("", text).strip()
                if rest:
                    step.details.append(Detail("Context Cursor added", rest))
            elif text:
                step.text = "\n\n".join(filter(None, (step.text, text)))
        session.steps.append(step)
    elif role == "assistant":
        step = Step("assistant", model=string(mapping(mapping(message.get("providerOptions")).get("cursor")).get("modelName")) or model)
        for part in parts:
            kind = part.get("type")
            if kind == "text":
                step.text = "\n\n".join(filter(None, (step.text, as_text(part.get("text")))))
            elif kind == "reasoning":
                step.thinking = "\n\n".join(filter(None, (step.thinking, as_text(part.get("text")))))
                step.model = step.model or string(mapping(mapping(part.get("providerOptions")).get("cursor")).get("modelName"))
            elif kind == "tool-call":
                arguments = part.get("args") if isinstance(part.get("args"), dict) else part.get("input")
                call = ToolCall(as_text(part.get("toolName")) or "tool", id=string(part.get("toolCallId")),
                                arguments=arguments if isinstance(arguments, dict) else None)
                if isinstance(arguments, dict) and isinstance(arguments.get("command"), str):
                    call.code, call.language = arguments["command"], "bash"
                step.tool_calls.append(call)
                if call.id:
                    calls[call.id] = call
            else:
                step.details.append(Detail(f"Content: {as_text(kind)}", raw_json(part, indent=True), "json"))
        session.steps.append(step)
    elif role == "tool":
        for part in parts:
            call, orphan = answered_call(calls, answered, string(part.get("toolCallId")), as_text(part.get("toolName")) or "tool")
            call.output = as_text(part.get("result") if "result" in part else part.get("output"))
            exited = EXIT_CODE.match(call.output or "")
            if exited:
                call.exit_code = int(exited.group(1))
                call.is_error = call.exit_code != 0
            if not call.is_error and isinstance(call.arguments, dict):
                call.changes = file_changes(call.arguments)
            if orphan:
                session.steps.append(Step("context", title="Tool result without its call", tool_calls=[call]))
    elif role == "system":
        session.steps.append(Step("context", title="System prompt", text="\n\n".join(as_text(p.get("text")) for p in parts), collapsed=True))
    else:
        session.not_understood(f"message/{role}")
        session.warn("unknown_event", f"unknown cursor-agent message role {role!r}")
        session.steps.append(Step("event", title=f"Unknown message: {role}", details=[Detail("Raw message", raw_json(message, indent=True), "json")]))
