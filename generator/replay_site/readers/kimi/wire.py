"""Kimi's wire.jsonl into steps (kimi-cli `wire/types.py`, `wire/file.py`).

The first line is `{"type": "metadata", "protocol_version"}` (files of the first protocol have
none); every other line is `{"timestamp": <epoch seconds>, "message": {"type", "payload"}}`,
a message of the wire the agent's UI reads, written after consecutive parts were merged. A
turn is `TurnBegin` (the user's input) … `TurnEnd`; each model call in it is a `StepBegin`,
then its `ContentPart`s (text, think), `ToolCall`s (their arguments completed by any
`ToolCallPart`), a `StatusUpdate` with its `token_usage` (uncached input, output, cache reads
and writes: counted once per response, by `message_id`), and the calls' `ToolResult`s. A
subagent's events come wrapped in `SubagentEvent`, naming the task call that started it.
"""
from __future__ import annotations

import re
from typing import Any

import orjson

from replay_site.diffs import change_from_texts
from replay_site.model import Detail, Image, Session, Step, TodoItem, ToolCall, Usage
from replay_site.readers.fields import answered_call, count, mapping, mark_unanswered, raw_json, string
from replay_site.readers.fields import text as as_text
from replay_site.readers.jsonl import LineKinds
from replay_site.readers.timestamps import parse_time


def message_kind(record: dict[str, Any]) -> str | None:
    if record.get("type") == "metadata":
        return "metadata"
    kind = mapping(record.get("message")).get("type")
    return kind if isinstance(kind, str) else None


# The UI's own traffic: approvals, hooks, MCP loading, notifications, plan display, the
# side questions (btw) and what a step was asked to wait for. Counted, not shown.
NOT_SHOWN = frozenset({
    "metadata", "TurnEnd", "MCPLoadingBegin", "MCPLoadingEnd", "HookTriggered", "HookResolved",
    "ApprovalRequest", "ApprovalResponse", "ApprovalRequestResolved", "Notification", "PlanDisplay",
    "BtwBegin", "BtwEnd", "QuestionRequest", "ToolCallRequest", "HookRequest", "CompactionBegin",
})
LINE_KINDS = LineKinds(not_shown=NOT_SHOWN, name=message_kind)
EXIT_CODE = re.compile(r"exit code:? (-?\d+)")
TODO_STATUS = {"done": "completed", "in_progress": "in_progress", "pending": "pending"}


def user_text(value: Any) -> tuple[str, list[Image]]:
    if isinstance(value, str):
        return value, []
    texts, images = [], []
    for part in value if isinstance(value, list) else []:
        part = mapping(part)
        if part.get("type") == "text":
            texts.append(as_text(part.get("text")))
        url = as_text(mapping(part.get("image_url")).get("url"))
        if url.startswith("data:image/") and ";base64," in url:
            media, _, data = url[5:].partition(";base64,")
            images.append(Image(media, data))
    return "\n".join(texts), images


class Builder:
    """One agent's events (the main agent's, or a subagent's) into its session's steps."""

    def __init__(self, session: Session, root: Builder | None = None) -> None:
        self.session = session
        self.root = root or self
        self.step: Step | None = None
        self.calls: dict[str, ToolCall] = {}
        self.last_call: ToolCall | None = None
        self.answered: set[int] = set()
        self.counted: set[str] = set()
        self.children: dict[str, Builder] = {}

    def add(self, line: int, kind: str, payload: dict[str, Any], when: Any) -> None:
        moment = parse_time(when)
        if kind in NOT_SHOWN:
            return
        if kind in ("TurnBegin", "SteerInput"):
            text, images = user_text(payload.get("user_input"))
            self.step = None
            self.session.steps.append(Step("user", text=text, images=images, timestamp=moment,
                                           title="Steered while the agent worked" if kind == "SteerInput" else None))
        elif kind == "StepBegin":
            self.step = self._new_step(moment)
        elif kind == "ContentPart":
            self._content(payload, moment)
        elif kind == "ToolCall":
            self._call(payload, moment)
        elif kind == "ToolCallPart" and self.last_call is not None:
            part = payload.get("arguments_part")
            if isinstance(part, str):
                self.last_call.arguments = (self.last_call.arguments if isinstance(self.last_call.arguments, str) else "") + part
        elif kind == "ToolCallPart":
            pass  # a part with no call before it has nothing to complete
        elif kind == "ToolResult":
            self._result(payload, moment)
        elif kind == "StatusUpdate":
            self._usage(payload)
        elif kind == "StepInterrupted":
            self.session.steps.append(Step("event", title="Step interrupted", timestamp=moment, collapsed=True))
            self.root.session.outcome = "interrupted"
        elif kind == "StepRetry":
            self.session.steps.append(Step("event", title=f"Retry {count(payload.get('next_attempt'))} of {count(payload.get('max_attempts'))}",
                                           text=as_text(payload.get("error_type")), timestamp=moment, collapsed=True))
        elif kind == "CompactionEnd":
            self.session.steps.append(Step("context", title="Compacted the context", timestamp=moment, collapsed=True,
                                           details=[Detail("Compaction", raw_json(payload, indent=True), "json")]))
        elif kind == "SubagentEvent":
            self._subagent(line, payload, moment)
        else:
            self.root.session.warn("unknown_event", f"unknown Kimi wire message kind {kind!r}", line)
            self.root.session.not_understood(kind)
            self.session.steps.append(Step("event", title=f"Unknown event: {kind}", timestamp=moment,
                                           details=[Detail("Raw event", raw_json(payload, indent=True), "json")]))

    def _new_step(self, moment: Any) -> Step:
        step = Step("assistant", timestamp=moment)
        self.session.steps.append(step)
        self.last_call = None
        return step

    def _current(self, moment: Any) -> Step:
        return self.step if self.step is not None else self._set(self._new_step(moment))

    def _set(self, step: Step) -> Step:
        self.step = step
        return step

    def _content(self, payload: dict[str, Any], moment: Any) -> None:
        step = self._current(moment)
        if payload.get("type") == "think":
            step.thinking += as_text(payload.get("think"))
        elif payload.get("type") == "text":
            step.text += as_text(payload.get("text"))
        else:
            step.details.append(Detail(f"Content: {as_text(payload.get('type'))}", raw_json(payload, indent=True), "json"))

    def _call(self, payload: dict[str, Any], moment: Any) -> None:
        function = mapping(payload.get("function"))
        arguments = function.get("arguments")
        call = ToolCall(as_text(function.get("name")) or "tool", id=string(payload.get("id")),
                        arguments=arguments if isinstance(arguments, str) else None)
        self._current(moment).tool_calls.append(call)
        self.last_call = call
        if call.id:
            self.calls[call.id] = call

    def _result(self, payload: dict[str, Any], moment: Any) -> None:
        call, orphan = answered_call(self.calls, self.answered, string(payload.get("tool_call_id")))
        if orphan:
            self.session.steps.append(Step("context", title="Tool result without its call", tool_calls=[call], timestamp=moment))
        value = mapping(payload.get("return_value"))
        output = value.get("output")
        call.output = output if isinstance(output, str) else user_text(output)[0]
        if value.get("message") and not call.output:
            call.output = as_text(value.get("message"))
        call.is_error = value.get("is_error") is True
        if exited := EXIT_CODE.search(as_text(value.get("message"))):
            call.exit_code = int(exited.group(1))
        for block in value.get("display") if isinstance(value.get("display"), list) else []:
            block = mapping(block)
            if block.get("type") == "diff" and isinstance(block.get("path"), str) and not block.get("is_summary"):
                old, new = as_text(block.get("old_text")), as_text(block.get("new_text"))
                call.changes.append(change_from_texts(block["path"], old or None, new))
            elif block.get("type") == "shell" and isinstance(block.get("command"), str):
                call.code, call.language = block["command"], as_text(block.get("language")) or "bash"
            elif block.get("type") == "todo" and isinstance(block.get("items"), list):
                call.todos = [TodoItem(as_text(mapping(item).get("title")), TODO_STATUS.get(mapping(item).get("status"), "pending"))
                              for item in block["items"]]
        if self.step is not None and self.step.tool_calls and all(id(each) in self.answered for each in self.step.tool_calls):
            self.step = None  # the next model call is a new step, even without its StepBegin

    def _usage(self, payload: dict[str, Any]) -> None:
        usage = mapping(payload.get("token_usage"))
        if not usage:
            return
        ident = string(payload.get("message_id"))
        if ident is not None and ident in self.counted:
            return  # the same response reported again
        if ident is not None:
            self.counted.add(ident)
        step = self.step or next((each for each in reversed(self.session.steps) if each.kind == "assistant"), None)
        if step is None or step.usage is not None:
            step = self._set(self._new_step(None))
        step.usage = Usage(input=count(usage.get("input_other")), output=count(usage.get("output")),
                           cache_read=count(usage.get("input_cache_read")), cache_write_5m=count(usage.get("input_cache_creation")))

    def _subagent(self, line: int, payload: dict[str, Any], moment: Any) -> None:
        key = string(payload.get("parent_tool_call_id")) or string(payload.get("task_tool_call_id")) \
            or string(payload.get("agent_id")) or "subagent"
        child = self.children.get(key)
        if child is None:
            session = Session(id=f"{self.root.session.id}/{key}", format=self.root.session.format, source=self.root.session.source,
                              parent_id=self.session.id, cwd=self.root.session.cwd)
            session.title = f"Subagent {as_text(payload.get('subagent_type')) or key}"
            child = self.children[key] = Builder(session, self.root)
            if key in self.calls:
                self.calls[key].child_session_id = session.id
        event = mapping(payload.get("event"))
        kind = string(event.get("type")) or "(no type)"
        child.add(line, kind, mapping(event.get("payload")), moment)

    def finish(self) -> list[Session]:
        """Calls without a result marked, JSON arguments parsed; the subagents' sessions, each
        with its own subagents nested."""
        mark_unanswered(self.calls.values(), self.answered)
        for call in self.calls.values():
            _parse_arguments(call)
        sessions = []
        for child in self.children.values():
            child.session.children.extend(child.finish())
            child.session.number_steps()
            sessions.append(child.session)
        return sessions


def _parse_arguments(call: ToolCall) -> None:
    """The model's arguments are a JSON string: shown as the object they hold, and a shell
    call's command as its code."""
    if not isinstance(call.arguments, str):
        return
    try:
        value = orjson.loads(call.arguments)
    except orjson.JSONDecodeError:
        return
    if isinstance(value, dict):
        call.arguments = value
        if call.code is None and call.name.lower() in ("shell", "bash") and isinstance(value.get("command"), str):
            call.code, call.language = value["command"], "bash"
