"""Codex records -> Steps: one assistant step per model response, with its token usage.

The record stream (see shapes.py) is walked once. Decisions that need the whole
file (which texts are duplicated as events, which call failed once every end
event is in) are made from a first pass and a final pass, never by position alone;
tool calls and the pieces of their results are handed to calls.py, which
settles them in that final pass.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Any

from replay_site.model import Detail, Fact, Problem, Session, Step, Usage
from replay_site.readers.codex.agents import QUIET_KINDS, agent_message, budget_notice, collab_step, realtime, task_of
from replay_site.readers.codex.calls import CALL_ITEMS, EVENT_CALLS, ToolCalls
from replay_site.readers.codex.outputs import classify
from replay_site.readers.codex.notices import NOTICE_KINDS, QUIET_NOTICES, notice, rerouted_to, turn_item
from replay_site.readers.codex.shapes import Record, line_kind
from replay_site.readers.codex.tokens import grown, service_tier, usage_of
from replay_site.readers.fields import first_request, raw_json, string, user_prompts
from replay_site.readers.jsonl import KIND_LENGTH, LineKinds, kind_of
from replay_site.readers.timestamps import utc_time

_CONTEXT_TAG = re.compile(r"^\s*<([A-Za-z_][\w -]*)>.*</\1>\s*$", re.S)
# event_msg kinds that only restate what response items already hold, or are UI telemetry.
_QUIET_EVENTS = frozenset(
    {
        "task_started", "task_complete", "turn_started", "turn_complete", "turn_diff", "web_search_begin",
        "web_search_end", "collab_waiting_begin", "collab_agent_spawn_begin",
        "exec_command_begin", "exec_command_output_delta", "patch_apply_begin", "mcp_tool_call_begin",
        "mcp_tool_call_end", "context_compacted", "entered_review_mode", "exited_review_mode",
        "agent_reasoning_section_break", "agent_reasoning_raw_content", "item_started", "plan_update",
        "view_image_tool_call", "background_event", "shutdown_complete", "session_configured",
        "get_history_entry_response", "undo_started", "undo_completed", "user_message_delta",
        "agent_message_delta", "agent_reasoning_delta", "thread_name_updated", "raw_response_item",
        "collab_close_end", "collab_interaction_end", "collab_resume_end", "image_generation_begin",
    }
)
_ABORTS = ("turn_aborted", "token_budget_abort")


def _budget_stop(kind: str, payload: dict[str, Any]) -> bool:
    """An aborted turn the token budget stopped, not one the user cancelled."""
    return kind == "token_budget_abort" or payload.get("reason") == "budget_limited"


# Context-budget reminders under the names third-party viewers give them (codex-trace), as
# event_msg or response_item; upstream writes them as <token_budget> developer messages.
_BUDGET_NOTICES = ("token_budget_reminder", "token_budget_compaction_reminder", "compaction_reminder")
# `additional_tools`: the tools offered to the model mid-thread (0.14x), the model's context, not a turn.
_QUIET_ITEMS = frozenset({"ghost_snapshot", "tool_search_call", "tool_search_output", "additional_tools"})
LINE_KINDS = LineKinds(
    not_shown=frozenset({f"event_msg/{kind}" for kind in _QUIET_EVENTS | QUIET_NOTICES}
                        | {f"response_item/{kind}" for kind in _QUIET_ITEMS}),
    name=line_kind,
)


def _text_parts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)]


def _is_context(text: str) -> bool:
    return bool(_CONTEXT_TAG.match(text)) or text.lstrip().startswith("# AGENTS.md instructions")


def _context_title(text: str, role: str) -> str:
    if text.lstrip().startswith("# AGENTS.md"):
        return "AGENTS.md"
    match = _CONTEXT_TAG.match(text)
    name = match.group(1).replace("_", " ") if match else f"{role} message"
    return name if role == "user" else f"{role}: {name}"


def _summary(payload: dict[str, Any]) -> list[str]:
    texts = _text_parts(payload.get("summary"))
    return texts or _text_parts(payload.get("content"))


class Builder:
    def __init__(self, session: Session, records: list[Record], problems: list[Problem]) -> None:
        self.s = session
        self.records = records
        self.problems = problems
        self.model: str | None = None
        self.cwd: str | None = None
        self.thread_name: str | None = None
        self.cur: Step | None = None
        self.cur_closed = False  # its usage came after its items: that response is over
        self.cur_has_output = False  # a tool result came in: the next item is a new response
        self.pending: Usage | None = None
        self.prev_total: Any = None
        self.log_total = 0  # the largest running total (token_count total_token_usage) the log gives
        self.tier: dict[str, str] = {}  # the service tier the turn runs at (Step.tier)
        self.response_ids: set[str] = set()
        self.use_records = any(r.kind == "token_usage_record" for r in records)
        self.tools = ToolCalls()
        self.meta: dict[str, Any] | None = None
        self.meta_ids: list[str] = []
        # Texts written both as response item and as event: the event is shown only when unmatched.
        self.dup_user: Counter[str] = Counter()
        self.dup_assistant: Counter[str] = Counter()
        self.dup_reasoning: Counter[str] = Counter()
        for record in records:
            payload = record.payload
            if record.kind != "response_item":
                continue
            if payload.get("type") == "message":
                parts = _text_parts(payload.get("content"))
                if payload.get("role") == "assistant":
                    self.dup_assistant["\n\n".join(parts).strip()] += 1
                elif payload.get("role") == "user":
                    self.dup_user["\n\n".join(p for p in parts if not _is_context(p)).strip()] += 1
            elif payload.get("type") == "reasoning":
                for text in _summary(payload):
                    self.dup_reasoning[text.strip()] += 1

    # -- steps ---------------------------------------------------------------------------------
    def _add(self, step: Step) -> Step:
        self.s.steps.append(step)
        self.cur = None
        return step

    def _assistant(self, record: Record) -> Step:
        cur = self.cur
        if cur is None or self.cur_closed or self.cur_has_output or (self.pending is not None and cur.usage is not None):
            cur = Step("assistant", timestamp=record.timestamp, model=self.model, tier=dict(self.tier))
            self.s.steps.append(cur)
            self.cur, self.cur_closed, self.cur_has_output = cur, False, False
            if self.pending is not None:
                cur.usage, self.pending = self.pending, None
        return cur

    def _stub(self, record: Record, what: str) -> None:
        raw = raw_json(record.payload)
        self._add(Step("event", timestamp=record.timestamp, title=f"Unknown Codex {what}", collapsed=True, details=[Detail("raw line", raw, "json")]))
        self.problems.append(Problem("unknown_event", f"unknown Codex {what}, shown as a stub", record.label, record.line))
        self.s.not_understood(record.line_kind[:KIND_LENGTH])

    def _use(self, usage: Usage | None) -> None:
        if usage is None:
            return
        if self.cur is not None and self.cur.usage is None:
            self.cur.usage, self.cur_closed = usage, True
        else:
            self.pending = usage if self.pending is None else self.pending + usage

    # -- walk ----------------------------------------------------------------------------------
    def build(self) -> None:
        for record in self.records:
            if record.kind in QUIET_KINDS:
                continue
            handler = getattr(self, f"_on_{record.kind}", None)
            if handler is None:
                self._stub(record, f"line kind {record.kind!r}")
            else:
                handler(record)
        if self.pending is not None:
            # Usage whose response left no items: keep it counted on the last response.
            last = next((st for st in reversed(self.s.steps) if st.kind == "assistant"), None)
            if last is None:
                last = Step("event", title="Token usage without a recorded response", collapsed=True)
                self.s.steps.append(last)
            last.usage = self.pending if last.usage is None else last.usage + self.pending
        self.tools.settle(self.cwd)
        self._check_total()
        self.s.title = self.thread_name or first_request(user_prompts(self.s.steps)) or task_of(self.s.steps) or ""
        stamps = [r.timestamp for r in self.records if r.timestamp]
        if stamps:
            self.s.ended_at = max(stamps)
            self.s.started_at = self.s.started_at or min(stamps)

    def _on_session_meta(self, record: Record) -> None:
        payload = record.payload
        ident = str(payload.get("id") or payload.get("session_id") or "")
        self.meta_ids.append(ident)
        if self.meta is not None:
            return  # a fork repeats its parent's meta; a resume may repeat its own
        self.meta = payload
        self.s.started_at = utc_time(payload.get("timestamp")) or record.timestamp
        self.cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
        self.s.cwd = self.cwd
        self.s.agent_version = payload.get("cli_version") or payload.get("version")
        git = payload.get("git") if isinstance(payload.get("git"), dict) else {}
        self.s.git_branch = git.get("branch")
        self.s.git_commit = git.get("commit_hash")
        if isinstance(payload.get("model"), str):
            self.model = payload["model"]
        for key in ("originator", "model_provider"):
            if isinstance(payload.get(key), str):
                self.s.facts.append(Fact(key.replace("_", " "), payload[key]))
        source = payload.get("source")
        if isinstance(source, str):
            self.s.facts.append(Fact("source", source))
        elif isinstance(source, dict):
            self.s.facts.append(Fact("source", next(iter(source), "?")))

    def _on_turn_context(self, record: Record) -> None:
        if isinstance(record.payload.get("model"), str):
            self.model = record.payload["model"]
        self._served(record.payload)

    def _served(self, settings: dict[str, Any]) -> None:
        """The service tier a turn context or the thread's settings name, for the steps after it."""
        if "service_tier" in settings:
            self.tier = service_tier(settings.get("service_tier"))
            if self.tier and not any(fact.label == "Service tier" for fact in self.s.facts):
                self.s.facts.append(Fact("Service tier", f"{settings['service_tier']} (priced at the {self.tier['service_tier']} rate)"))

    def _on_world_state(self, record: Record) -> None:
        raw = raw_json(record.payload.get("state", record.payload), indent=True)
        self._add(Step("context", timestamp=record.timestamp, title="world state", collapsed=True, details=[Detail("state", raw, "json")]))

    def _on_compacted(self, record: Record) -> None:
        text = record.payload.get("message") if isinstance(record.payload.get("message"), str) else ""
        self._add(Step("event", timestamp=record.timestamp, title="Context compacted", text=text, collapsed=True))

    def _on_inter_agent_communication(self, record: Record) -> None:
        self._add(agent_message(record))

    def _on_realtime_item(self, record: Record) -> None:
        step = realtime(record)
        if step is not None:
            self._add(step)

    def _on_token_usage_record(self, record: Record) -> None:
        key = str(record.payload.get("response_id") or record.line)
        if key in self.response_ids:
            return
        self.response_ids.add(key)
        self._use(usage_of(record.payload.get("usage")))

    # -- response items ------------------------------------------------------------------------
    def _on_response_item(self, record: Record) -> None:
        payload = record.payload
        kind = kind_of(payload)
        if kind == "message":
            self._message(record)
        elif kind == "reasoning":
            texts = [t for t in _summary(payload) if t.strip()]
            if texts:
                step = self._assistant(record)
                step.thinking = "\n\n".join(filter(None, [step.thinking, *texts]))
            else:
                self._assistant(record)  # encrypted only: still the start of a response
        elif kind in CALL_ITEMS:
            self.tools.call(payload, self._assistant(record))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._output(record)
        elif kind in _BUDGET_NOTICES:
            self._add(budget_notice(payload, record))
        elif kind == "agent_message":  # ResponseItem::AgentMessage: one agent's message to another
            self._add(agent_message(record))
        elif kind in ("compaction", "compaction_summary", "context_compaction"):
            self._add(Step("event", timestamp=record.timestamp, title="Context compacted", collapsed=True))
        elif kind in _QUIET_ITEMS:
            return
        else:
            self._stub(record, f"response item {kind!r}")

    def _message(self, record: Record) -> None:
        payload = record.payload
        role = payload.get("role") or "user"
        parts = _text_parts(payload.get("content"))
        images = classify(payload.get("content")).images if isinstance(payload.get("content"), list) else []
        if role == "assistant":
            step = self._assistant(record)
            text = "\n\n".join(parts)
            step.text = f"{step.text}\n\n{text}" if step.text else text
            step.images.extend(images)
            return
        if role != "user":
            body = "\n\n".join(parts)
            self._add(Step("context", timestamp=record.timestamp, title=_context_title(parts[0] if parts else "", role), text=body, collapsed=True))
            return
        context = [p for p in parts if _is_context(p)]
        for part in context:
            self._add(Step("context", timestamp=record.timestamp, title=_context_title(part, "user"), text=part, collapsed=True))
        prompt = "\n\n".join(p for p in parts if not _is_context(p))
        if prompt.strip() or images:
            self._add(Step("user", timestamp=record.timestamp, text=prompt, images=images))

    def _output(self, record: Record) -> None:
        call_id = record.payload.get("call_id")
        call_id = call_id if isinstance(call_id, str) else None
        if call_id not in self.tools.calls:
            self.tools.orphan(call_id, record.line, self._assistant(record))
        self.tools.output(record.payload)
        self.cur_has_output = True

    # -- events --------------------------------------------------------------------------------
    def _on_event_msg(self, record: Record) -> None:
        payload = record.payload
        kind = kind_of(payload)
        if kind in EVENT_CALLS and not self.tools.logged(payload):
            self.tools.event_call(kind, payload, self._assistant(record))
        if kind == "item_completed" and (step := turn_item(payload, record)) is not None:
            self._add(step)
            return
        if self.tools.event(kind, payload):
            return
        self._turn_end(kind, payload)
        if kind == "user_message":
            text = str(payload.get("message") or "")
            if self.dup_user[text.strip()] > 0:
                self.dup_user[text.strip()] -= 1
            elif text.strip():
                self._add(Step("user", timestamp=record.timestamp, text=text))
        elif kind == "agent_message":
            text = str(payload.get("message") or "")
            if self.dup_assistant[text.strip()] > 0:
                self.dup_assistant[text.strip()] -= 1
            elif text.strip():
                step = self._assistant(record)
                step.text = f"{step.text}\n\n{text}" if step.text else text
        elif kind == "agent_reasoning":
            text = str(payload.get("text") or "")
            if self.dup_reasoning[text.strip()] > 0:
                self.dup_reasoning[text.strip()] -= 1
            elif text.strip():
                step = self._assistant(record)
                step.thinking = f"{step.thinking}\n\n{text}" if step.thinking else text
        elif kind == "token_count":
            self._token_count(payload)
        elif kind == "thread_settings_applied":
            settings = payload.get("thread_settings") if isinstance(payload.get("thread_settings"), dict) else payload
            if isinstance(settings.get("model"), str):
                self.model = settings["model"]
            self._served(settings)
        elif kind == "error":
            message = str(payload.get("message") or "error")
            self._add(Step("event", timestamp=record.timestamp, title="Error", error=message))
        elif kind in _ABORTS:
            # A turn the budget stopped (`budget_limited`, or `token_budget_abort`) ends like any aborted turn.
            # A turn cancelled (reason interrupted, replaced, or none) is the user's doing, not an error.
            reason = str(payload.get("reason") or ("token budget exhausted" if kind == "token_budget_abort" else "no reason given"))
            if _budget_stop(kind, payload):
                self._add(Step("event", timestamp=record.timestamp, title="Turn aborted", error=f"turn aborted: {reason}"))
            else:
                self._add(Step("event", timestamp=record.timestamp, title="Turn cancelled", text=f"turn aborted: {reason}"))
        elif kind in _BUDGET_NOTICES:
            self._add(budget_notice(payload, record))
        elif kind == "collab_tool_call":
            self._add(collab_step(payload, record.timestamp))
        elif kind in NOTICE_KINDS:
            self.model = rerouted_to(payload) if kind == "model_reroute" and rerouted_to(payload) else self.model
            self._add(notice(kind, payload, record))
        elif kind not in _QUIET_EVENTS and kind not in QUIET_NOTICES:
            self._stub(record, f"event {kind!r}")

    def _turn_end(self, kind: str | None, payload: dict[str, Any]) -> None:
        """How the last turn ended, as the log says it, and the thread's name when it is given one."""
        if kind == "task_started":
            self.s.outcome = None
        elif kind == "task_complete":
            self.s.outcome = "completed"
        elif kind in _ABORTS:
            # a turn cancelled is interrupted whatever the reason given (interrupted, replaced,
            # none); one the token budget stopped is left to the aborted turn's error
            self.s.outcome = None if _budget_stop(kind, payload) else "interrupted"
        elif kind == "thread_name_updated":
            self.thread_name = string(payload.get("thread_name")) or string(payload.get("name")) or self.thread_name

    def _token_count(self, payload: dict[str, Any]) -> None:
        info = payload.get("info")
        if not isinstance(info, dict):
            return  # null info = no response yet
        total = info.get("total_token_usage")
        running = usage_of(total)
        if running is not None and running.total > self.log_total:
            self.log_total = running.total
        if self.use_records:
            return  # token_usage_record lines carry the same responses with ids
        if total is not None and total == self.prev_total:
            return  # the same event re-emitted (Codex repeats it after each turn_context)
        before, self.prev_total = usage_of(self.prev_total), total
        last = usage_of(info.get("last_token_usage"))
        if last is None and running is not None and before is not None:
            # Only the running total: this response is what it grew by, never the total again.
            last = grown(running, before)
        self._use(last or running)

    def _check_total(self) -> None:
        """The log's own running total against the responses counted: where per-response
        records are missing, the figures are a lower bound and the page says by how much."""
        counted = sum(step.usage.total for step in self.s.steps if step.usage)
        if self.log_total <= counted or self.log_total - counted <= max(100, self.log_total // 100):
            return
        last = next((step for step in reversed(self.s.steps) if step.usage), None)
        if last is not None:
            last.usage.partial = True
        self.s.facts.append(Fact("Usage incomplete", f"the log's running total is {self.log_total:,} tokens, its per-response "
                                 f"records add up to {counted:,}: tokens and cost are lower bounds"))
