"""OpenCode messages and parts into steps (`session/message-v2.ts`, `session/processor.ts`).

An assistant message is one agent turn of one or more model calls: each call's parts run
from a `step-start` part to a `step-finish` part, which holds that call's tokens and cost.
The message itself keeps the sum of the costs but only the last call's tokens (it is
overwritten at each step-finish), so the steps here are the calls, each counted from its
step-finish; a message without any (an older or cut one) is one step with the message's
own figures. Tool parts hold the call and its result together (`state`).
"""
from __future__ import annotations

from typing import Any

from replay_site.diffs import change_from_texts
from replay_site.model import Cost, Detail, FileChange, Image, Problem, Session, Step, TodoItem, ToolCall, Usage
from replay_site.readers.fields import count, mapping, number, raw_json, string
from replay_site.readers.fields import text as as_text
from replay_site.readers.opencode.storage import Message, Stored
from replay_site.readers.timestamps import parse_time

# Parts that are bookkeeping: the snapshot a call started from and the files it touched
# (by hash, for undo), counted and not shown.
NOT_SHOWN_PARTS = frozenset({"step-start", "snapshot", "patch"})
SHOWN_PARTS = frozenset({"text", "reasoning", "tool", "step-finish", "file", "agent", "subtask", "retry", "compaction"})
# An error OpenCode records when the user stopped the turn: how it ended, not a failure.
ABORTED = "MessageAbortedError"


def usage_of(tokens: Any) -> Usage | None:
    """OpenCode's `input` leaves out cache reads and writes and its `output` leaves out
    reasoning (`Session.getUsage`): reasoning is added back to output, as Usage counts it."""
    tokens = mapping(tokens)
    if not tokens:
        return None
    cache = mapping(tokens.get("cache"))
    reasoning = count(tokens.get("reasoning"))
    return Usage(input=count(tokens.get("input")), output=count(tokens.get("output")) + reasoning,
                 cache_read=count(cache.get("read")), cache_write_5m=count(cache.get("write")), reasoning=reasoning)


def cost_of(value: Any) -> Cost | None:
    """OpenCode's cost from its model table; 0 (a model it has no price for, or a plan) is left
    for the estimate."""
    usd = number(value)
    return Cost(usd, "log") if usd is not None and usd > 0 else None


def _hunks(diff: str) -> str:
    """A unified diff's hunks, its file headers (Index:, ===, ---/+++) left out."""
    lines = diff.splitlines(keepends=True)
    start = next((index for index, line in enumerate(lines) if line.startswith("@@")), len(lines))
    return "".join(lines[start:])


def file_changes(tool: str, arguments: dict[str, Any], metadata: dict[str, Any]) -> list[FileChange]:
    """An edit's or write's change: from the before/after texts OpenCode keeps (`filediff`),
    else its diff, else the call's own arguments."""
    path = string(arguments.get("filePath")) or string(mapping(metadata.get("filediff")).get("file"))
    filediff = mapping(metadata.get("filediff"))
    if path and isinstance(filediff.get("before"), str) and isinstance(filediff.get("after"), str):
        return [change_from_texts(path, filediff["before"] or None, filediff["after"])]
    if path and isinstance(metadata.get("diff"), str) and "@@" in metadata["diff"]:
        return [FileChange(path, "modify", _hunks(metadata["diff"]))]
    if path and tool == "edit" and isinstance(arguments.get("oldString"), str) and isinstance(arguments.get("newString"), str):
        return [change_from_texts(path, arguments["oldString"] or None, arguments["newString"])]
    if path and tool == "write" and isinstance(arguments.get("content"), str):
        return [change_from_texts(path, None if metadata.get("exists") is not True else "", arguments["content"])]
    return []


def tool_call(part: dict[str, Any]) -> ToolCall:
    state = mapping(part.get("state"))
    arguments = mapping(state.get("input"))
    metadata = mapping(state.get("metadata"))
    name = as_text(part.get("tool")) or "tool"
    call = ToolCall(name, id=string(part.get("callID")), arguments=arguments or None)
    status = state.get("status")
    if name == "bash" and isinstance(arguments.get("command"), str):
        call.code, call.language = arguments["command"], "bash"
        exit_code = metadata.get("exit")
        if isinstance(exit_code, int) and not isinstance(exit_code, bool):
            call.exit_code = exit_code
            call.is_error = exit_code != 0
    if status == "completed":
        call.output = as_text(state.get("output"))
        call.changes = file_changes(name, arguments, metadata)
    elif status == "error":
        call.output, call.is_error = as_text(state.get("error")), True
    else:  # pending or running: the result never came (the turn was cut)
        call.missing_result = True
    times = mapping(state.get("time"))
    start, end = number(times.get("start")), number(times.get("end"))
    if start is not None and end is not None and end >= start:
        call.duration_s = (end - start) / 1000
    if isinstance(metadata.get("sessionId"), str):  # the task tool's subagent session
        call.child_session_id = metadata["sessionId"]
    if name == "todowrite" and isinstance(arguments.get("todos"), list):
        call.todos = [TodoItem(as_text(todo.get("content")), as_text(todo.get("status")) or "pending")
                      for todo in arguments["todos"] if isinstance(todo, dict)]
    for attachment in state.get("attachments") if isinstance(state.get("attachments"), list) else []:
        if image := _image(attachment):
            call.images.append(image)
    return call


def _image(part: Any) -> Image | None:
    """A file part holding an image as a data: URL."""
    url = mapping(part).get("url")
    if not isinstance(url, str) or not url.startswith("data:image/") or ";base64," not in url:
        return None
    media, _, data = url[5:].partition(";base64,")
    return Image(media, data)


class Builder:
    """One stored session's messages into its steps, every record counted."""

    def __init__(self, session: Session, stored: Stored) -> None:
        self.session = session
        self.stored = stored

    def build(self) -> None:
        for message in self.stored.messages:
            role = self.stored_role(message)
            self.session.count_record(f"message/{role}")
            if role == "user":
                self._user(message)
            elif role == "assistant":
                self._assistant(message)
            else:
                self.session.not_understood(f"message/{role}")
                self.session.problems.append(Problem("unknown_event", f"unknown OpenCode message role {role!r}", message.where))
                self.session.steps.append(Step("event", title=f"Unknown message: {role}",
                                               details=[Detail("Raw message", raw_json(message.info, indent=True), "json")]))
                for part in message.parts:
                    self._count(part)

    @staticmethod
    def stored_role(message: Message) -> str:
        return string(message.info.get("role")) or "(no role)"

    def _count(self, part: dict[str, Any]) -> str:
        kind = string(part.get("type")) or "(no type)"
        if kind in NOT_SHOWN_PARTS:
            self.session.count_record(f"part/{kind}", "not_shown")
        else:
            self.session.count_record(f"part/{kind}")
        return kind

    def _unknown_part(self, step: Step, kind: str, part: dict[str, Any], where: str) -> None:
        self.session.not_understood(f"part/{kind}")
        self.session.problems.append(Problem("unknown_event", f"unknown OpenCode part kind {kind!r}", where))
        step.details.append(Detail(f"Unknown part: {kind}", raw_json(part, indent=True), "json"))

    def _user(self, message: Message) -> None:
        step = Step("user", timestamp=parse_time(mapping(message.info.get("time")).get("created")))
        texts: list[str] = []
        for part in message.parts:
            kind = self._count(part)
            if kind == "text" and part.get("synthetic") is not True:
                texts.append(as_text(part.get("text")))
            elif kind == "text":  # what OpenCode added for the model (a file read for an @mention)
                step.details.append(Detail("Added by OpenCode", as_text(part.get("text"))))
            elif kind == "file":
                image = _image(part)
                if image:
                    step.images.append(image)
                else:
                    texts.append(f"[file: {as_text(part.get('filename')) or as_text(part.get('url'))}]")
            elif kind == "agent":
                texts.append(f"@{as_text(part.get('name'))}")
            elif kind == "subtask":
                step.details.append(Detail(f"Subtask for {as_text(part.get('agent'))}: {as_text(part.get('description'))}",
                                           as_text(part.get("prompt"))))
            elif kind == "compaction":
                step.title = "Compaction of the context asked" + (" (automatic)" if part.get("auto") is True else "")
                step.kind = "context"
            elif kind not in NOT_SHOWN_PARTS:
                self._unknown_part(step, kind, part, message.where)
        step.text = "\n\n".join(text for text in texts if text)
        self.session.steps.append(step)

    def _assistant(self, message: Message) -> None:
        info = message.info
        model = string(info.get("modelID"))
        created = parse_time(mapping(info.get("time")).get("created"))
        steps: list[Step] = []
        current: Step | None = None
        finished = False

        def open_step(when: Any = None) -> Step:
            step = Step("assistant", model=model, timestamp=parse_time(when) or created)
            steps.append(step)
            return step

        for part in message.parts:
            kind = self._count(part)
            times = mapping(part.get("time"))
            if kind == "step-start":
                current = open_step(times.get("start"))
                continue
            if kind in NOT_SHOWN_PARTS:
                continue
            step = current or open_step(times.get("start"))
            current = step
            if kind == "text":
                step.text = "\n\n".join(filter(None, (step.text, as_text(part.get("text")))))
            elif kind == "reasoning":
                step.thinking = "\n\n".join(filter(None, (step.thinking, as_text(part.get("text")))))
            elif kind == "tool":
                step.tool_calls.append(tool_call(part))
            elif kind == "step-finish":
                step.usage, step.cost = usage_of(part.get("tokens")), cost_of(part.get("cost"))
                finished, current = True, None
            elif kind == "retry":
                error = mapping(part.get("error"))
                step.details.append(Detail(f"Retry {count(part.get('attempt'))}",
                                           as_text(mapping(error.get("data")).get("message")) or raw_json(error)))
            else:
                self._unknown_part(step, kind, part, message.where)
        if not steps:
            open_step()
        if not finished:  # no step-finish part: the message's own figures are its one call's
            steps[-1].usage, steps[-1].cost = usage_of(info.get("tokens")), cost_of(info.get("cost"))
        error = mapping(info.get("error"))
        if error and error.get("name") != ABORTED:
            steps[-1].error = as_text(mapping(error.get("data")).get("message")) or as_text(error.get("name")) or "error"
        self.session.steps.extend(steps)
