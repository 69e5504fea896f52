"""gptme: messages into steps. Tool calls are parsed out of assistant text (calls.py), results
are the `system` messages after them (results.py), paired by `call_id`, else by what the
result names, else by position."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from replay_site.model import (
    Cost,
    Detail,
    Session,
    Step,
    ToolCall,
    Usage,
)
from replay_site.readers.fields import count, raw_json
from replay_site.readers.gptme.calls import (
    ParsedCall,
    file_change,
    parse_calls,
    split_thinking,
    strip_calls,
    to_tool_call,
)
from replay_site.readers.gptme.results import (
    AUTO_REPLY,
    ResultInfo,
    classify,
    command_matches,
    context_title,
    path_matches,
)
from replay_site.readers.jsonl import LineKinds
from replay_site.readers.timestamps import parse_time

ROLES = ("system", "user", "assistant")
VERSION = re.compile(r"You are gptme v?([\w.+-]+)")  # gptme's system prompt opens so
_WORKDIR = re.compile(r"\*\*Working Directory:\*\*\s*(\S.*)")


def _role(message: dict[str, Any]) -> str | None:
    return message.get("role") if isinstance(message.get("role"), str) else None


# A conversation line is a message; its kind is its role.
LINE_KINDS = LineKinds(name=_role)


def usage_from(metadata: dict[str, Any]) -> Usage | None:
    """Nested `usage` (current) or flat token fields (before _migrate_metadata existed).

    gptme's `input_tokens` is already uncached: Anthropic reports it that way and
    gptme's OpenAI path stores prompt_tokens - cached - cache_creation
    (llm/openai_responses.py `_extract_usage_token_counts`). So it is used as-is.
    """
    raw = metadata.get("usage")
    if not isinstance(raw, dict):
        raw = metadata
    keys = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens")
    if not any(key in raw for key in keys):
        return None
    return Usage(
        input=count(raw.get("input_tokens")),
        output=count(raw.get("output_tokens")),
        cache_read=count(raw.get("cache_read_tokens")),
        cache_write_5m=count(raw.get("cache_creation_tokens")),  # gptme asks for the default 5-minute TTL
    )


@dataclass
class _Pending:
    call: ToolCall
    parsed: ParsedCall
    paired: bool = False


class Builder:
    """Turns messages into steps, one at a time, keeping the calls still awaiting results."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.group: list[_Pending] = []  # calls of the latest assistant message
        self.step: Step | None = None  # that message's step (orphan results go there)
        self.last: _Pending | None = None  # the call the latest result went to
        self.known: dict[str, str] = {}  # file texts seen so far, for real diffs

    def add(self, line: int, message: dict[str, Any]) -> None:
        role, content = message.get("role"), message.get("content")
        role = role if isinstance(role, str) else repr(role)
        timestamp = parse_time(message.get("timestamp"))
        if timestamp is not None and timestamp.tzinfo is not None:
            # gptme writes naive local times; an aware one (a damaged or foreign line) is
            # shown by its wall clock too, so that all of the session's times compare.
            timestamp = timestamp.replace(tzinfo=None)
        if role not in ROLES or not isinstance(content, str):
            self._close()
            what = f"role {role!r}" if role not in ROLES else "content that is not text"
            self.session.steps.append(Step("event", timestamp=timestamp, title=f"Unknown message ({what})",
                                           details=[Detail("Raw JSON", raw_json(message), "json")]))
            self.session.warn("unknown_event", f"message with {what}, kept as a raw event", line)
            self.session.not_understood(LINE_KINDS.kind(message))
            return
        self._time(timestamp)
        if role == "system":
            self._system(message, content, timestamp)
        elif role == "user":
            self._close()
            if content.lstrip().startswith(AUTO_REPLY):
                self.session.steps.append(Step("context", timestamp=timestamp, title="Auto-reply nudge",
                                               text=content, collapsed=True))
            else:
                self.session.steps.append(Step("user", timestamp=timestamp, text=content,
                                               details=self._files(message)))
        else:
            self._close()
            self._assistant(message, content, timestamp)

    def _time(self, timestamp: Any) -> None:
        # Chained prompts are stamped at startup, so the file is not in time order.
        if timestamp is None:
            return
        s = self.session
        s.started_at = timestamp if s.started_at is None else min(s.started_at, timestamp)
        s.ended_at = timestamp if s.ended_at is None else max(s.ended_at, timestamp)

    @staticmethod
    def _files(message: dict[str, Any]) -> list[Detail]:
        files = message.get("files")
        if isinstance(files, list) and files:
            return [Detail("Attached files", "\n".join(str(f) for f in files))]
        return []

    def _assistant(self, message: dict[str, Any], content: str, timestamp: Any) -> None:
        metadata = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
        thinking, text = split_thinking(content)
        parsed = parse_calls(text, legacy_shell=timestamp is not None and timestamp.year < 2024)
        step = Step("assistant", timestamp=timestamp, text=strip_calls(text, parsed), thinking=thinking,
                    details=self._files(message))
        model = metadata.get("model")
        step.model = model if isinstance(model, str) and model else None
        step.usage = usage_from(metadata)
        cost = metadata.get("cost")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            step.cost = Cost(float(cost), "log")  # absent = unknown (gptme omits a zero/unpriced cost)
        timings = metadata.get("timings") if isinstance(metadata.get("timings"), dict) else {}
        spent = [timings.get(k) for k in ("ttft_ms", "gen_ms") if isinstance(timings.get(k), (int, float))]
        if spent:
            step.duration_s = sum(spent) / 1000
        by_tool = timings.get("tool_ms_by_name") if isinstance(timings.get("tool_ms_by_name"), dict) else {}
        for one in parsed:
            call = to_tool_call(one)
            ms = by_tool.get(call.name)
            # Timings are per tool name: only a lone call of that tool can own them.
            if isinstance(ms, (int, float)) and sum(p.tool == one.tool for p in parsed) == 1:
                call.duration_s = ms / 1000
            step.tool_calls.append(call)
            self.group.append(_Pending(call, one))
        self.step = step
        self.session.steps.append(step)

    def _system(self, message: dict[str, Any], content: str, timestamp: Any) -> None:
        title = context_title(message, content)
        if title is not None:
            if self.session.agent_version is None and (match := VERSION.match(content.lstrip())):
                self.session.agent_version = match.group(1).rstrip(".,")
            if self.session.cwd is None and (match := _WORKDIR.search(content)):
                self.session.cwd = match.group(1).strip()
            self.session.steps.append(Step("context", timestamp=timestamp, title=title, text=content,
                                           collapsed=True))
            return
        info = classify(content, message.get("metadata"))
        call_id = message.get("call_id") if isinstance(message.get("call_id"), str) else None
        target = self._match(info, call_id)
        plain = call_id is None and info.tool is None and not info.is_error
        if target is not None:
            self._record(target, content, info)
        elif plain and self.last is not None:
            # A second message from the call that just answered (e.g. gh's "Waiting for checks").
            self._record(self.last, content, info)
        elif plain:
            # Output of a user command (/tokens, /log...) or a notice: nothing marks it as a result.
            self.session.steps.append(Step("event", timestamp=timestamp, title="System message", text=content))
        else:
            self._orphan(content, info, call_id, timestamp)

    def _match(self, info: ResultInfo, call_id: str | None) -> _Pending | None:
        """The call this result answers: by id, else by what it names, else the first open one.

        Content first means a call whose result never came does not steal the
        next call's result (no shifting); position is only for results that
        name nothing (errors, "Task complete"-like texts of unknown tools)."""
        if call_id is not None:
            by_id = next((p for p in self.group if p.call.id == call_id), None)
            if by_id is not None or any(p.call.id for p in self.group):
                return by_id  # an id that matches nothing is an orphan, not a positional guess
        open_calls = [p for p in self.group if not p.paired]
        if info.tool is not None:
            same = [p for p in open_calls if p.call.name == info.tool]
            if info.key is not None:
                keyed = [p for p in same if self._key_matches(p, info)]
                if keyed:
                    return keyed[0]
            return same[0] if same else None
        return open_calls[0] if open_calls else None

    @staticmethod
    def _key_matches(pending: _Pending, info: ResultInfo) -> bool:
        if info.tool == "shell":
            return command_matches(pending.parsed.code, info.key)
        return path_matches(pending.parsed.path, info.key)

    def _record(self, pending: _Pending, content: str, info: ResultInfo) -> None:
        call = pending.call
        call.output = content if call.output is None else f"{call.output}\n\n{content}"
        call.is_error = call.is_error or info.is_error
        if call.exit_code is None:
            call.exit_code = info.exit_code
        pending.paired = True
        self.last = pending

    def _orphan(self, content: str, info: ResultInfo, call_id: str | None, timestamp: Any) -> None:
        """A result no call asked for stays visible, as a call marked orphan."""
        call = ToolCall(name=info.tool or "unknown", id=call_id, output=content, is_error=info.is_error,
                        exit_code=info.exit_code, orphan=True)
        if self.step is not None:
            self.step.tool_calls.append(call)
        else:
            self.session.steps.append(Step("event", timestamp=timestamp, title="Tool result without a call",
                                           tool_calls=[call]))

    def _close(self) -> None:
        """The assistant turn is over: unanswered calls are marked, edits worked out in order."""
        for pending in self.group:
            if not pending.paired:
                pending.call.missing_result = True
            if not pending.call.is_error:
                change = file_change(pending.parsed, pending.call.output or "", self.known)
                if change is not None:
                    pending.call.changes.append(change)
                    if pending.parsed.tool == "patch":
                        pending.call.code = None  # the diff says what the ORIGINAL/UPDATED block says: shown once
        self.group, self.step, self.last = [], None, None

    def finish(self) -> None:
        self._close()
