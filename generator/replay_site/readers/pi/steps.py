"""Pi session entries into steps (pi-mono `core/session-manager.ts`, messages of pi-ai).

A `message` entry holds one AgentMessage: `user`, `assistant` (one model response: text,
thinking and `toolCall` blocks, its own `usage` with a cost Pi worked out), `toolResult`
(paired with its call by `toolCallId`), or one of the agent's own kinds (`bashExecution`, a
command the user ran with `!`; `custom`, `branchSummary`, `compactionSummary`). The other
entry types are settings and bookkeeping of the tree (model and thinking level changes,
compactions, labels, the session's name)."""
from __future__ import annotations

import re
from typing import Any

from replay_site.diffs import change_from_texts
from replay_site.model import Cost, Detail, FileChange, Image, Session, Step, ToolCall, Usage
from replay_site.readers.fields import answered_call, count, mapping, mark_unanswered, number, raw_json, string
from replay_site.readers.fields import text as as_text
from replay_site.readers.jsonl import LineKinds, kind_of
from replay_site.readers.timestamps import parse_time


def entry_kind(entry: dict[str, Any]) -> str | None:
    """A line's kind: its `type`, and for a message its role (`message/assistant`)."""
    kind = kind_of(entry)
    if kind == "message":
        role = mapping(entry.get("message")).get("role")
        return f"message/{role}" if isinstance(role, str) else "message/(no role)"
    return kind


# The header, extension state (`custom`, never shown to the model), bookmarks and the
# session's display name are bookkeeping: counted, never a step.
LINE_KINDS = LineKinds(not_shown=frozenset({"session", "custom", "label", "session_info"}), name=entry_kind)
# How Pi's bash tool ends the output of a command that failed.
EXIT_CODE = re.compile(r"Command exited with code (-?\d+)\s*$")
SETTINGS = frozenset({"model_change", "thinking_level_change"})


def blocks_text(content: Any, kinds: tuple[str, ...] = ("text",)) -> str:
    """The text of a content value: a string, or the `text` of its text blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n\n".join(block["text"] for block in content
                       if isinstance(block, dict) and block.get("type") in kinds and isinstance(block.get("text"), str))


def images(content: Any) -> list[Image]:
    if not isinstance(content, list):
        return []
    return [Image(string(block.get("mimeType")) or "image/png", block["data"]) for block in content
            if isinstance(block, dict) and block.get("type") == "image" and isinstance(block.get("data"), str)]


def usage_of(message: dict[str, Any]) -> Usage | None:
    """One response's tokens. pi-ai's `input` is already uncached (its providers take cache
    reads and writes out of the prompt count); cache writes are Anthropic's 5-minute kind."""
    raw = mapping(message.get("usage"))
    if not raw:
        return None
    return Usage(input=count(raw.get("input")), output=count(raw.get("output")),
                 cache_read=count(raw.get("cacheRead")), cache_write_5m=count(raw.get("cacheWrite")))


def cost_of(message: dict[str, Any]) -> Cost | None:
    """Pi's own cost of the response, from its model table; 0 means the model had no price
    there, so the cost is left for the estimate."""
    total = number(mapping(mapping(message.get("usage")).get("cost")).get("total"))
    return Cost(total, "log") if total is not None and total > 0 else None


def file_changes(name: str, arguments: dict[str, Any]) -> list[FileChange]:
    """What an `edit` (one replacement, or a list of `edits`) or a `write` did to a file."""
    path = string(arguments.get("path")) or string(arguments.get("file_path"))
    if path is None:
        return []
    if name == "write" and isinstance(arguments.get("content"), str):
        return [change_from_texts(path, None, arguments["content"])]
    if name != "edit":
        return []
    edits = arguments.get("edits") if isinstance(arguments.get("edits"), list) else [arguments]
    return [change_from_texts(path, edit["oldText"], edit["newText"]) for edit in edits
            if isinstance(edit, dict) and isinstance(edit.get("oldText"), str) and isinstance(edit.get("newText"), str)]


class Builder:
    """Entries in file order into the session's steps; `entry_of` keeps each step's entry id
    (the reader folds the branches the session left)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.entry_of: dict[int, str] = {}
        self.calls: dict[str, ToolCall] = {}
        self.answered: set[int] = set()

    def add(self, line: int, entry: dict[str, Any]) -> None:
        kind = kind_of(entry)
        if kind in LINE_KINDS.not_shown:
            if kind == "session_info" and string(entry.get("name")):
                self.session.title = entry["name"].strip()
            return
        when = parse_time(entry.get("timestamp"))
        if kind == "message":
            step = self._message(line, mapping(entry.get("message")), entry)
        elif kind in SETTINGS:
            setting = (f"{entry.get('provider')}/{entry.get('modelId')}" if kind == "model_change"
                       else as_text(entry.get("thinkingLevel")))
            step = Step("event", title=f"{kind.replace('_', ' ').capitalize()}: {setting}", collapsed=True)
        elif kind in ("compaction", "branch_summary"):
            title = "Compacted the context" if kind == "compaction" else "Summary of the branch left"
            if kind == "compaction" and count(entry.get("tokensBefore")):
                title += f" ({count(entry.get('tokensBefore')):,} tokens before)"
            step = Step("context", title=title, text=as_text(entry.get("summary")), collapsed=True)
        elif kind == "custom_message":
            step = Step("context", title=f"Extension message: {as_text(entry.get('customType'))}",
                        text=blocks_text(entry.get("content")), images=images(entry.get("content")),
                        collapsed=entry.get("display") is False)
        else:
            step = self._unknown(line, entry, LINE_KINDS.kind(entry))
        if step is None:
            return
        step.timestamp = step.timestamp or when
        self.session.steps.append(step)
        if isinstance(entry.get("id"), str):
            self.entry_of[id(step)] = entry["id"]

    def _unknown(self, line: int, entry: dict[str, Any], kind: str) -> Step:
        self.session.warn("unknown_event", f"unknown Pi entry kind {kind!r}", line)
        self.session.not_understood(kind)
        return Step("event", title=f"Unknown entry: {kind}", details=[Detail("Raw entry", raw_json(entry, indent=True), "json")])

    def _message(self, line: int, message: dict[str, Any], entry: dict[str, Any]) -> Step | None:
        role = message.get("role")
        content = message.get("content")
        if role == "user":
            return Step("user", text=blocks_text(content), images=images(content))
        if role == "assistant":
            return self._assistant(message)
        if role == "toolResult":
            return self._result(message)
        if role == "bashExecution":
            exit_code = message.get("exitCode") if isinstance(message.get("exitCode"), int) else None
            call = ToolCall("bash", code=as_text(message.get("command")), language="bash", output=as_text(message.get("output")),
                            exit_code=exit_code, is_error=bool(exit_code) or message.get("cancelled") is True)
            return Step("user", title="Command run by the user", tool_calls=[call])
        if role in ("custom", "hookMessage"):
            return Step("context", title=f"Extension message: {as_text(message.get('customType'))}",
                        text=blocks_text(content), images=images(content), collapsed=message.get("display") is False)
        if role in ("branchSummary", "compactionSummary"):
            title = "Summary of the branch left" if role == "branchSummary" else "Summary of the compacted context"
            return Step("context", title=title, text=as_text(message.get("summary")), collapsed=True)
        return self._unknown(line, entry, LINE_KINDS.kind(entry))

    def _assistant(self, message: dict[str, Any]) -> Step:
        content = message.get("content") if isinstance(message.get("content"), list) else []
        step = Step("assistant", model=string(message.get("model")), text=blocks_text(content),
                    thinking="\n\n".join(as_text(block.get("thinking")) for block in content
                                         if isinstance(block, dict) and block.get("type") == "thinking" and block.get("thinking")),
                    usage=usage_of(message), cost=cost_of(message))
        for block in content:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                arguments = block.get("arguments")
                call = ToolCall(as_text(block.get("name")) or "tool", id=string(block.get("id")),
                                arguments=arguments if isinstance(arguments, (dict, str)) else None)
                if isinstance(arguments, dict) and call.name == "bash" and isinstance(arguments.get("command"), str):
                    call.code, call.language = arguments["command"], "bash"
                step.tool_calls.append(call)
                if call.id:
                    self.calls[call.id] = call
        if message.get("stopReason") == "error":
            step.error = as_text(message.get("errorMessage")) or "the model request failed"
        return step

    def _result(self, message: dict[str, Any]) -> Step | None:
        """A tool's result joins its call's step; one without a call is an orphan of its own."""
        call, orphan = answered_call(self.calls, self.answered, string(message.get("toolCallId")),
                                     as_text(message.get("toolName")) or "tool")
        step = Step("context", title="Tool result without its call", tool_calls=[call]) if orphan else None
        call.output = blocks_text(message.get("content"))
        call.images = images(message.get("content"))
        call.is_error = message.get("isError") is True
        if call.name == "bash" and (exited := EXIT_CODE.search(call.output)):
            call.exit_code = int(exited.group(1))
        if not call.is_error and isinstance(call.arguments, dict):
            call.changes = file_changes(call.name, call.arguments)
        return step

    def finish(self) -> None:
        mark_unanswered(self.calls.values(), self.answered)
