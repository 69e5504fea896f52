"""Factory Droid session lines into steps.

Droid is closed source: what its lines hold rests on the public descriptions of tools that
read them (cass's Factory connector, agent-sessions' Droid parser and provider, cli-continues'
Droid schemas, tokscale's Droid parser). A line is `session_start` (the session's id, title,
owner, cwd), `message` (`{id, timestamp, parentId, message: {role, content}}`, whose content
is Anthropic-style blocks: `text`, `thinking`, `tool_use` from the assistant and the
`tool_result` blocks that answer them on a user message), `todo_state` (the todo list as
text, `1. [in_progress] task` a line) or `compaction_state` (the summary that replaced the
messages before it). No line carries tokens: the session's totals are in its settings file
(reader.py).
"""
from __future__ import annotations

import re
from typing import Any

from replay_site.diffs import change_from_texts
from replay_site.model import Detail, FileChange, Session, Step, TodoItem, ToolCall
from replay_site.readers.codex.patch import parse_apply_patch, patch_in
from replay_site.readers.fields import answered_call, mapping, mark_unanswered, raw_json, string
from replay_site.readers.fields import text as as_text
from replay_site.readers.jsonl import LineKinds, kind_of
from replay_site.readers.timestamps import utc_time

# The header is bookkeeping: its fields become the session's, never a step.
LINE_KINDS = LineKinds(not_shown=frozenset({"session_start"}))
SHELLS = frozenset({"Execute", "Bash"})
TODO_LINE = re.compile(r"^\s*\d+\.\s*\[(\w+)\]\s*(.+?)\s*$", re.MULTILINE)
REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
# The first user message of a session a Task call started (agent-sessions reads the type from it).
SUBAGENT_TITLE = "# Task Tool Invocation"
SUBAGENT_TYPE = re.compile(r"Subagent type:\s*([\w.-]+)")


def todos_from(value: Any) -> list[TodoItem]:
    """A todo list as Droid writes it: text of numbered `[status] task` lines (or an object
    holding that text in `todos`), or a list of items with their `status`."""
    text = value.get("todos") if isinstance(value, dict) else value
    if isinstance(text, list):
        return [TodoItem(as_text(item.get("content") or item.get("description")), as_text(item.get("status")) or "pending")
                for item in text if isinstance(item, dict)]
    if not isinstance(text, str):
        return []
    return [TodoItem(task, status) for status, task in TODO_LINE.findall(text)]


def file_changes(name: str, arguments: dict[str, Any], cwd: str | None) -> list[FileChange]:
    """An `Edit` (old_str → new_str), a `Create` (content), or an `ApplyPatch` whose patch is
    the `input` argument."""
    path = string(arguments.get("file_path")) or string(arguments.get("path"))
    if name == "Edit" and path and isinstance(arguments.get("old_str"), str) and isinstance(arguments.get("new_str"), str):
        return [change_from_texts(path, arguments["old_str"], arguments["new_str"])]
    if name == "Create" and path and isinstance(arguments.get("content"), str):
        return [change_from_texts(path, None, arguments["content"])]
    if name == "ApplyPatch" and (patch := patch_in(arguments.get("input") or arguments.get("patch"))):
        return parse_apply_patch(patch, cwd)
    return []


def subagent_type(title: str | None) -> str | None:
    """The subagent type a Task-started session names in its title, else None (a user's session)."""
    if not title or not title.lstrip().startswith(SUBAGENT_TITLE):
        return None
    found = SUBAGENT_TYPE.search(title)
    return found.group(1) if found else ""


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


class Builder:
    """One session file's lines into its steps; `calls` keeps every call by id (the reader
    links a Task call to the session it started)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.calls: dict[str, ToolCall] = {}
        self.answered: set[int] = set()
        self.header: dict[str, Any] = {}

    def add(self, line: int, entry: dict[str, Any]) -> None:
        kind = kind_of(entry) or "(no type)"
        if kind == "session_start":
            if not self.header:
                self.header = entry
                self.session.cwd = string(entry.get("cwd"))
            return
        when = utc_time(entry.get("timestamp"))
        steps = self._steps(line, kind, entry)
        for step in steps:
            step.timestamp = step.timestamp or when
            self.session.steps.append(step)

    def _steps(self, line: int, kind: str, entry: dict[str, Any]) -> list[Step]:
        if kind == "message":
            message = mapping(entry.get("message"))
            role = message.get("role")
            if role == "assistant":
                return [self._assistant(message)]
            if role == "user" and string(message.get("hookEventName")):
                return [Step("event", title=f"Hook: {message['hookEventName']}", collapsed=True,
                             details=[Detail("Hook results", raw_json(message.get("hookResults"), indent=True), "json")])]
            if role == "user":
                return self._user(message)
        elif kind == "agent_turn_outcome":
            return [self._turn_outcome(entry)]
        elif kind == "todo_state":
            todos = todos_from(entry.get("todos"))
            return [Step("event", title=f"Todo list ({len(todos)} items)", collapsed=True,
                         text="\n".join(f"[{item.status}] {item.text}" for item in todos))]
        elif kind == "compaction_state":
            removed = entry.get("removedCount")
            switched = entry.get("summaryKind") == "provider_switch_serialization"
            title = ("Context carried over to another model provider" if switched else "Compacted the context") \
                + (f" ({removed} messages summarised)" if isinstance(removed, int) and not isinstance(removed, bool) else "")
            return [Step("context", title=title, text=as_text(entry.get("summaryText")), collapsed=True)]
        if kind == "message":  # a role no description names: counted under it, not as a message
            return [self._unknown(line, entry, f"message/{as_text(mapping(entry.get('message')).get('role'))}"[:40], "message")]
        return [self._unknown(line, entry, LINE_KINDS.kind(entry))]

    def _turn_outcome(self, entry: dict[str, Any]) -> Step:
        """How a turn ended: a cancelled one leaves the session interrupted until another ends."""
        reason = as_text(entry.get("reason")) or "ended"
        self.session.outcome = "interrupted" if reason == "cancelled" else None
        return Step("event", title=f"Turn {reason}" if reason in ("cancelled", "ended") else f"Turn ended: {reason}", collapsed=True,
                    error="the turn ended with an error" if reason == "error" else None)

    def _unknown(self, line: int, entry: dict[str, Any], kind: str, counted_as: str | None = None) -> Step:
        self.session.warn("unknown_event", f"unknown Factory Droid line kind {kind!r}", line)
        self.session.not_understood(kind, counted_as)
        return Step("event", title=f"Unknown line: {kind}", details=[Detail("Raw line", raw_json(entry, indent=True), "json")])

    def _user(self, message: dict[str, Any]) -> list[Step]:
        """A user message: the results it carries join their calls; its text (less the
        system reminders Droid injects, kept folded) is the user's turn."""
        steps: list[Step] = []
        texts: list[str] = []
        for block in _blocks(message):
            if block.get("type") == "tool_result":
                if (orphan := self._result(block)) is not None:
                    steps.append(orphan)
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
        text = "\n\n".join(texts)
        reminders = REMINDER.findall(text)
        said = REMINDER.sub("", text).strip()
        if said:
            step = Step("user", text=said)
            step.details = [Detail("System reminder", reminder) for reminder in reminders]
            steps.append(step)
        elif reminders:
            steps.append(Step("context", title="System reminder", text="\n\n".join(reminders), collapsed=True))
        return steps

    def _assistant(self, message: dict[str, Any]) -> Step:
        blocks = _blocks(message)
        step = Step("assistant", model=string(message.get("model")),
                    text="\n\n".join(block["text"] for block in blocks if block.get("type") == "text" and isinstance(block.get("text"), str)),
                    thinking="\n\n".join(as_text(block.get("thinking") or block.get("text")) for block in blocks
                                         if block.get("type") == "thinking" and (block.get("thinking") or block.get("text"))))
        for block in blocks:
            if block.get("type") != "tool_use":
                continue
            arguments = block.get("input")
            call = ToolCall(as_text(block.get("name")) or "tool", id=string(block.get("id")),
                            arguments=arguments if isinstance(arguments, (dict, str)) else None)
            if isinstance(arguments, dict):
                if call.name in SHELLS and isinstance(arguments.get("command"), str):
                    call.code, call.language = arguments["command"], "bash"
                if call.name == "TodoWrite":
                    call.todos = todos_from(arguments.get("todos"))
            step.tool_calls.append(call)
            if call.id:
                self.calls[call.id] = call
        return step

    def _result(self, block: dict[str, Any]) -> Step | None:
        call, orphan = answered_call(self.calls, self.answered, string(block.get("tool_use_id")))
        content = block.get("content")
        call.output = content if isinstance(content, str) else "\n\n".join(
            part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)) if isinstance(content, list) else as_text(content)
        call.is_error = block.get("is_error") is True
        if not call.is_error and isinstance(call.arguments, dict):
            call.changes = file_changes(call.name, call.arguments, self.session.cwd)
        return Step("context", title="Tool result without its call", tool_calls=[call]) if orphan else None

    def finish(self) -> None:
        mark_unanswered(self.calls.values(), self.answered)
