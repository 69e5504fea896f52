"""Glue conversation rows -> Steps. One StepBuilder per (sub)session.

The same builder reads top-level rows and `subagent_event.inner` rows: the
producer serialises inner agent events with the top-level field names
(`serializeAgentEvent` in glue_harness agent_manager.dart).

Step boundaries follow how Glue writes a model response: its text segments
(`assistant_message`, one row per segment), `assistant_thinking`, its
`tool_call` rows and its `usage` row belong together; a `tool_result` or a
`user_message` ends the response, so the next assistant row starts a new step.
v1 rows also carry `request_id`; a different request id starts a new step too.
Note the final answer of a turn is flushed *after* its usage row, so a usage
row may open a step that its text then joins.
"""
from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from replay_site.diffs import change_from_texts
from replay_site.model import (
    Detail,
    Problem,
    ProblemKind,
    Session,
    Step,
    ToolCall,
    Usage,
)
from replay_site.readers.fields import count, mark_unanswered, raw_json
from replay_site.readers.fields import text as as_text

# `status` values that mean the tool did not do its job. Glue writes "failed"
# for denials too; the schema's "denied"/"cancelled" are read the same way.
FAILED_STATUSES = frozenset({"failed", "denied", "cancelled", "error"})
# Content prefixes Glue's tools use for failures (tools.dart, app.dart), used
# only when a (legacy) row carries neither `success` nor `status`.
ERROR_PREFIXES = ("Error:", "Tool error:", "User denied tool execution")
EXIT_CODE = re.compile(r"(?:^|\n)Exit code: (-?\d+)\s*$")
SHELL_TOOLS = frozenset({"bash", "shell", "run_command"})
LEGACY_EDIT_TOOLS = frozenset({"edit_file", "edit"})


def usage_from(row: dict[str, Any]) -> Usage:
    # Glue normalises providers to uncached `input_tokens` (openai_client.dart
    # subtracts cached_tokens), so input maps straight to Usage.input. Cache
    # writes are Anthropic's default ephemeral (5-minute) cache.
    return Usage(
        input=count(row.get("input_tokens")),
        output=count(row.get("output_tokens")),
        cache_read=count(row.get("cache_read_tokens")),
        cache_write_5m=count(row.get("cache_creation_tokens")),
        reasoning=count(row.get("reasoning_tokens")),
    )


def _exit_code(row: dict[str, Any], metadata: dict[str, Any], content: str) -> int | None:
    for value in (row.get("exit_code"), metadata.get("exit_code")):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    match = EXIT_CODE.search(content)
    return int(match.group(1)) if match else None


def apply_result(call: ToolCall, row: dict[str, Any]) -> None:
    """Fill a call from its `tool_result` row: output, failure, exit code, duration, diff."""
    content = as_text(row.get("content"))
    metadata = row.get("metadata") if isinstance(row.get("metadata"), dict) else {}
    call.output = content
    call.exit_code = _exit_code(row, metadata, content)
    success, status = row.get("success"), row.get("status")
    if isinstance(success, bool) or isinstance(status, str):
        # The producer's own verdict wins (bash: success = exit_code == 0).
        call.is_error = success is False or (isinstance(status, str) and status in FAILED_STATUSES)
    else:
        # Legacy rows: no verdict, so judge from the exit code and the text.
        call.is_error = (call.exit_code not in (None, 0)) or content.lstrip().startswith(ERROR_PREFIXES)
    duration = row.get("duration_ms")
    if isinstance(duration, (int, float)) and not isinstance(duration, bool):
        call.duration_s = duration / 1000
    diff = metadata.get("diff")
    if isinstance(diff, dict) and isinstance(diff.get("path"), str):
        old = diff.get("old_text") if isinstance(diff.get("old_text"), str) else None
        new = diff.get("new_text") if isinstance(diff.get("new_text"), str) else None
        if metadata.get("is_new_file") is True or diff.get("is_new_file") is True:
            old = None
        if old is not None or new is not None:
            call.changes.append(change_from_texts(diff["path"], old, new))
    elif not call.is_error and call.name in LEGACY_EDIT_TOOLS:
        _legacy_edit(call)


def _legacy_edit(call: ToolCall) -> None:
    """Early Glue builds logged no diff for an edit: it is rebuilt from the call's arguments.
    Only the edited snippet is known, not where it sits in the file, so the hunk header says
    no line numbers instead of claiming line 1."""
    args = call.arguments if isinstance(call.arguments, dict) else {}
    path, old, new = args.get("path"), args.get("old_string"), args.get("new_string")
    if not (isinstance(path, str) and path and isinstance(old, str) and isinstance(new, str)):
        return
    change = change_from_texts(path, old, new)
    change.diff = re.sub(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@", "@@ line numbers unknown @@", change.diff, flags=re.M)
    call.changes.append(change)


class StepBuilder:
    """Turns one session's rows, in file order, into its steps."""

    def __init__(self, session: Session, default_model: str | None, label: str) -> None:
        self.session = session
        self.label = label  # the conversation file, as problems name it
        self.default_model = default_model
        self.current: Step | None = None
        self.open = False  # whether the current assistant step still takes rows
        self.request: str | None = None
        self.calls: dict[str, ToolCall] = {}
        self.call_step: dict[int, Step] = {}  # id(ToolCall) -> its step
        self.answered: set[int] = set()
        self.title_step: Step | None = None
        self.latest_title: str | None = None
        self.saw_usage = False

    # -- steps -----------------------------------------------------------
    def _append(self, step: Step) -> Step:
        self.session.steps.append(step)
        return step

    def _assistant(self, ts: datetime | None, request: Any, model: Any, fresh: bool = False) -> Step:
        request = request if isinstance(request, str) else None
        model = model if isinstance(model, str) and model else None
        if (
            fresh
            or self.current is None
            or not self.open
            or (request and self.request and request != self.request)
        ):
            self.current = self._append(Step("assistant", timestamp=ts, model=model or self.default_model))
            self.open = True
            self.request = request
        elif model and self.current.model != model and self.current.model == self.default_model:
            self.current.model = model  # a legacy default replaced by the row's own model
        self.request = self.request or request
        return self.current

    def warn(self, kind: ProblemKind, message: str, line: int | None) -> None:
        self.session.problems.append(Problem(kind, message, self.label, line))

    def close(self) -> None:
        self.open = False

    def event(self, title: str, ts: datetime | None, text: str = "", **fields: Any) -> Step:
        return self._append(Step("event", timestamp=ts, title=title, text=text, **fields))

    def unknown(self, kind: str, row: dict[str, Any], ts: datetime | None, line: int) -> None:
        """A row this reader does not know: kept as a visible stub, never dropped."""
        raw = raw_json(row, indent=True)
        self.event(f"Unknown event: {kind}", ts, details=[Detail("Raw event", raw, "json")], collapsed=True)
        self.warn("unknown_event", f"unknown event type {kind!r}, kept as a stub step", line)

    # -- rows shared by the top level and subagent inner events -----------
    def handle(self, kind: str, row: dict[str, Any], ts: datetime | None, line: int) -> bool:
        """Apply one row; False when `kind` is not a type this builder knows."""
        if kind == "user_message":
            self.current, self.open = None, False
            self._append(Step("user", timestamp=ts, text=as_text(row.get("text"))))
        elif kind == "assistant_message":
            step = self._assistant(ts, row.get("request_id"), row.get("model_ref"))
            step.text = "\n\n".join(part for part in (step.text, as_text(row.get("text"))) if part)
        elif kind == "assistant_thinking":
            step = self._assistant(ts, row.get("request_id"), row.get("model_ref"))
            step.thinking = "\n\n".join(part for part in (step.thinking, as_text(row.get("text"))) if part)
        elif kind == "tool_call":
            self._tool_call(row, ts, line)
        elif kind == "tool_result":
            self._tool_result(row, ts, line)
        elif kind == "usage":
            self.usage(usage_from(row), ts, row.get("request_id"), row.get("model_ref"))
        elif kind == "agent_notice":
            notice = row.get("kind") if isinstance(row.get("kind"), str) else "info"
            self.event(f"Notice ({notice})", ts, as_text(row.get("message")))
        elif kind == "agent_error":
            self.event("Agent error", ts, error=as_text(row.get("error")) or "agent error")
        elif kind in ("tool_call_pending", "agent_done"):
            # Streaming markers: the pending call is repeated in full by the
            # following `tool_call`, and `agent_done` only says the run ended.
            pass
        else:
            return False
        return True

    def usage(self, usage: Usage, ts: datetime | None, request: Any, model: Any) -> None:
        """One model response's tokens, attached to that response's step."""
        self.saw_usage = True
        request = request if isinstance(request, str) else None
        same = not (request and self.request and request != self.request)
        if self.current is not None and self.open and self.current.usage is None and same:
            step = self._assistant(ts, request, model)
        else:
            # A new response (e.g. the final answer, whose text follows its usage row).
            step = self._assistant(ts, request, model, fresh=True)
        step.usage = usage

    def side_usage(self, title: str, usage: Usage, ts: datetime | None, model: Any) -> Step:
        """A model call outside the conversation (title generation, ...): its own collapsed step."""
        model = model if isinstance(model, str) and model else self.default_model
        return self.event(title, ts, usage=usage, model=model, collapsed=True)

    def title_usage(self, usage: Usage, ts: datetime | None, model: Any) -> None:
        self.title_step = self.side_usage("Title generation", usage, ts, model)

    def title(self, kind: str, title: Any, ts: datetime | None) -> None:
        text = as_text(title)
        self.latest_title = text or self.latest_title
        label = "Title re-evaluated" if kind == "title_reevaluated" else "Title generated"
        if self.title_step is not None and not self.title_step.text:
            # The usage row just before belongs to this title: one step, one response.
            self.title_step.title, self.title_step.text = label, text
        else:
            self.event(label, ts, text, collapsed=True)
        self.title_step = None

    def _tool_call(self, row: dict[str, Any], ts: datetime | None, line: int) -> None:
        step = self._assistant(ts, row.get("request_id"), row.get("model_ref"))
        name = row.get("name") if isinstance(row.get("name"), str) else "(unnamed tool)"
        call_id = row.get("id") if isinstance(row.get("id"), str) else None
        arguments = row.get("arguments")
        call = ToolCall(name=name, id=call_id, arguments=arguments if isinstance(arguments, (dict, str)) else None)
        if name in SHELL_TOOLS and isinstance(arguments, dict) and isinstance(arguments.get("command"), str):
            call.code, call.language = arguments["command"], "bash"
        step.tool_calls.append(call)
        self.call_step[id(call)] = step
        if call_id is not None:
            if call_id in self.calls:
                self.warn("warning", f"tool call id {call_id!r} used twice; results pair with the later call", line)
            self.calls[call_id] = call

    def _tool_result(self, row: dict[str, Any], ts: datetime | None, line: int) -> None:
        call_id = row.get("call_id") if isinstance(row.get("call_id"), str) else None
        call = self.calls.get(call_id) if call_id is not None else None
        if call is None or id(call) in self.answered:
            # A result with no call to answer: shown as an orphan, not dropped,
            # beside the other results of the response it came with.
            call = ToolCall(name="(unknown tool)", id=call_id, orphan=True)
            (self.current or self._assistant(ts, None, None)).tool_calls.append(call)
            self.warn("warning", f"tool_result for unknown call id {call_id!r}", line)
        apply_result(call, row)
        self.answered.add(id(call))
        # Results end a model response: the next assistant row is a new step.
        self.close()

    # -- subagent links ----------------------------------------------------
    def link_child(self, child_id: str) -> None:
        """Point the step (and call) that spawned a subagent at its child session."""
        pending = [
            call
            for step in reversed(self.session.steps)
            for call in step.tool_calls
            if id(call) not in self.answered and call.child_session_id is None and not call.orphan
        ]
        spawner = next((call for call in pending if "agent" in call.name), None)
        if spawner is not None:
            spawner.child_session_id = child_id
            step = self.call_step[id(spawner)]
        else:
            # Parallel fan-out: one call, several children; link the step only.
            step = self.current or (self.session.steps[-1] if self.session.steps else None)
        if step is None:
            step = self.event("Subagent spawned", None)
        step.child_session_ids.append(child_id)

    def finish(self) -> None:
        mark_unanswered((call for step in self.session.steps for call in step.tool_calls), self.answered)
        self.session.number_steps()
