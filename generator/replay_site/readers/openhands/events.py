"""One OpenHands conversation's events into steps (`openhands/sdk/event/`).

Each event is one file and has a `kind` (its class). A model response is one step: the
ActionEvents of one response (parallel calls) and its closing MessageEvent share its
`llm_response_id`, and its tokens are the one TokenUsage of that `response_id` in the
conversation's stats (base_state.json), never the accumulated totals. Results arrive as
later events and are put on their calls by `tool_call_id`.

Since July 2026 events form a tree (`parent_id`, the state's `leaf_event_id` is the branch in
use); an event off that branch was taken back (a fork or a navigation), kept folded.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from replay_site.model import Cost, Detail, Problem, Session, Step, ToolCall, Usage
from replay_site.readers.fields import abandon, answered_call, count, listed, mapping, mark_unanswered, number, raw_json, string, text
from replay_site.readers.openhands import tools
from replay_site.readers.timestamps import utc_time

# Bookkeeping: state changes (their final values are in base_state.json), the request for a
# condensation, raw completion logs and token ids, streaming pieces.
NOT_SHOWN = frozenset({"ConversationStateUpdateEvent", "CondensationRequest", "LLMCompletionLogEvent",
                       "TokenEvent", "StreamingDeltaEvent"})
# Metrics the SDK copies into a parent from its subagents: their responses are the children's.
CHILD_METRICS = ("task:", "delegate:")


@dataclass
class Event:
    record: dict[str, Any]
    where: str  # how a warning names its file

    @property
    def kind(self) -> str:
        return text(self.record.get("kind"))[:60] or "(no kind)"


@dataclass
class Response:
    """One model response's figures from the stats."""

    usage: Usage
    model: str | None
    cost: float | None = None


def usage_of(token_usage: dict[str, Any]) -> Usage:
    """litellm's counts: the prompt holds the cache reads and writes, the completion holds the
    reasoning; Usage's input is the uncached rest."""
    prompt, cache_read = count(token_usage.get("prompt_tokens")), count(token_usage.get("cache_read_tokens"))
    cache_write = count(token_usage.get("cache_write_tokens"))
    return Usage(input=max(prompt - cache_read - cache_write, 0), output=count(token_usage.get("completion_tokens")),
                 cache_read=cache_read, cache_write_5m=cache_write, reasoning=count(token_usage.get("reasoning_tokens")))


def responses(state: dict[str, Any]) -> dict[str, tuple[str, Response]]:
    """Every response of the conversation's own LLMs by response id, with the usage id it was
    counted under. A cost is logged per response, but zero costs are skipped: costs pair with
    responses only when there are as many."""
    found: dict[str, tuple[str, Response]] = {}
    for usage_id, metrics in sorted(mapping(mapping(state.get("stats")).get("usage_to_metrics")).items()):
        metrics = mapping(metrics)
        if usage_id.startswith(CHILD_METRICS):
            continue
        usages = [each for each in listed(metrics.get("token_usages")) if isinstance(each, dict)]
        costs = [number(mapping(each).get("cost")) for each in listed(metrics.get("costs"))]
        paired = costs if len(costs) == len(usages) else [None] * len(usages)
        for token_usage, usd in zip(usages, paired):
            ident = string(token_usage.get("response_id"))
            if ident and ident not in found:
                model = string(token_usage.get("model")) or string(metrics.get("model_name"))
                found[ident] = (usage_id, Response(usage_of(token_usage), model, usd))
    return found


def off_branch(events: list[Event], leaf: str | None) -> set[str]:
    """The ids of events not on the branch that ends at `leaf` (none when the log has no tree)."""
    ids = [string(event.record.get("id")) for event in events]
    if leaf is None or leaf not in ids or not any("parent_id" in event.record for event in events):
        return set()
    parent = {}
    for index, event in enumerate(events):
        said = string(event.record.get("parent_id"))
        parent[ids[index]] = None if said == "root" else said if said else (ids[index - 1] if index else None)
    branch, current = set(), leaf
    while current is not None and current not in branch:
        branch.add(current)
        current = parent.get(current)
    return {ident for ident in ids if ident and ident not in branch}


@dataclass
class Builder:
    session: Session
    responses: dict[str, tuple[str, Response]]
    taken_back: set[str] = field(default_factory=set)
    by_response: dict[str, Step] = field(default_factory=dict)
    calls: dict[str, ToolCall] = field(default_factory=dict)
    answered: set[int] = field(default_factory=set)

    def build(self, events: list[Event]) -> None:
        for event in events:
            kind = event.kind
            if kind in NOT_SHOWN:
                self.session.count_record(kind, "not_shown")
                continue
            self.session.count_record(kind)
            step = self._event(event, kind)
            if step is not None and string(event.record.get("id")) in self.taken_back and not step.collapsed:
                abandon(step, "not on the branch in use")
        mark_unanswered(self.calls.values(), self.answered)
        self._other_responses()

    def _event(self, event: Event, kind: str) -> Step | None:
        record = event.record
        when = utc_time(record.get("timestamp"))
        if kind == "MessageEvent":
            return self._message(record, when)
        if kind == "ActionEvent":
            step = self._response_step(record, when)
            call = tools.action_call(record)
            step.tool_calls.append(call)
            if call.id:
                self.calls[call.id] = call
            return step
        if kind in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation"):
            self._result(record, kind)
            return None
        if kind == "SystemPromptEvent":
            prompt = text(mapping(record.get("system_prompt")).get("text"))
            dynamic = text(mapping(record.get("dynamic_context")).get("text"))
            return self._add(Step("context", timestamp=when, title="System prompt", collapsed=True,
                                  details=[Detail("System prompt", "\n\n".join(filter(None, (prompt, dynamic))))]))
        if kind in ("Condensation", "CondensationSummaryEvent"):
            step = self._add(Step("context", timestamp=when, title="Context condensed", collapsed=True,
                                  text=text(record.get("summary"))))
            self._figures(step, string(record.get("llm_response_id")))
            return step
        if kind in ("PauseEvent", "InterruptEvent"):
            return self._add(Step("event", timestamp=when, title="Paused by the user" if kind == "PauseEvent" else "Interrupted by the user"))
        if kind == "ConversationErrorEvent":
            return self._add(Step("event", timestamp=when, title=text(record.get("code")) or "error",
                                  error=text(record.get("detail")) or text(record.get("code")) or "error"))
        if kind == "HookExecutionEvent":
            return self._hook(record, when)
        if kind == "ACPToolCallEvent":
            return self._acp_call(record, when)
        return self._unknown(event, kind, when)

    def _add(self, step: Step) -> Step:
        self.session.steps.append(step)
        return step

    def _figures(self, step: Step, response_id: str | None) -> None:
        found = self.responses.pop(response_id, None) if response_id else None
        if found is not None:
            response = found[1]
            step.usage, step.model = response.usage, response.model or step.model
            step.cost = Cost(response.cost, "log") if response.cost else None

    def _response_step(self, record: dict[str, Any], when: Any) -> Step:
        """The step of the model response an agent event belongs to (one per response id)."""
        ident = string(record.get("llm_response_id"))
        step = self.by_response.get(ident) if ident else None
        if step is None:
            step = self._add(Step("assistant", timestamp=when, model=self.session_model))
            if ident:
                self.by_response[ident] = step
                self._figures(step, ident)
        thought, _ = tools.content_text(record.get("thought"))
        reasoning = text(record.get("reasoning_content")) or _thinking_blocks(record.get("thinking_blocks"))
        step.text = "\n\n".join(filter(None, (step.text, thought)))
        step.thinking = "\n\n".join(filter(None, (step.thinking, reasoning)))
        return step

    @property
    def session_model(self) -> str | None:
        return self.session.declared_models[0] if self.session.declared_models else None

    def _message(self, record: dict[str, Any], when: Any) -> Step:
        message = mapping(record.get("llm_message"))
        said, images = tools.content_text(message.get("content"))
        if record.get("source") == "agent":
            step = self._response_step({"llm_response_id": record.get("llm_response_id"),
                                        "reasoning_content": message.get("reasoning_content"),
                                        "thinking_blocks": message.get("thinking_blocks")}, when)
            step.text = "\n\n".join(filter(None, (step.text, said)))
            step.images.extend(images)
            return step
        step = self._add(Step("user", timestamp=when, text=said, images=images))
        added, _ = tools.content_text(record.get("extended_content"))
        if added:
            step.details.append(Detail("Added by OpenHands", added))
        return step

    def _result(self, record: dict[str, Any], kind: str) -> None:
        call, orphan = answered_call(self.calls, self.answered, string(record.get("tool_call_id")),
                                     string(record.get("tool_name")) or "tool")
        if kind == "ObservationEvent":
            tools.observe(call, record)
        elif kind == "AgentErrorEvent":
            tools.fail(call, record)
        else:
            tools.reject(call, record)
        if orphan:  # a result whose call is not in the log: shown where it came
            self._add(Step("event", timestamp=utc_time(record.get("timestamp")), title="Result of a call not in the log",
                           tool_calls=[call]))

    def _hook(self, record: dict[str, Any], when: Any) -> Step:
        output = "\n".join(filter(None, (text(record.get("stdout")), text(record.get("stderr")), text(record.get("error")))))
        title = f"Hook {text(record.get('hook_event_type'))}: {text(record.get('hook_command'))}"
        if record.get("blocked") is True:
            title += " (blocked it)"
        return self._add(Step("event", timestamp=when, title=title, collapsed=True,
                              details=[Detail(f"Exit code {count(record.get('exit_code'))}", output)] if output else []))

    def _acp_call(self, record: dict[str, Any], when: Any) -> Step:
        """A call made by an ACP agent OpenHands drives: the call and its result in one event."""
        call = ToolCall(text(record.get("title")) or "tool", id=string(record.get("tool_call_id")),
                        arguments=record.get("raw_input") if isinstance(record.get("raw_input"), (dict, str)) else None)
        call.output = text(record.get("raw_output")) if record.get("raw_output") is not None else None
        call.is_error = record.get("is_error") is True
        call.missing_result = call.output is None and record.get("status") not in ("completed", "failed")
        self.answered.add(id(call))
        return self._add(Step("assistant", timestamp=when, tool_calls=[call]))

    def _unknown(self, event: Event, kind: str, when: Any) -> Step:
        self.session.not_understood(kind)
        self.session.problems.append(Problem("unknown_event", f"unknown OpenHands event kind {kind!r}", event.where))
        return self._add(Step("event", timestamp=when, title=f"Unknown event: {kind}",
                              details=[Detail("Raw event", raw_json(event.record, indent=True), "json")]))

    def _other_responses(self) -> None:
        """Responses the stats count that no event names (a title, a condenser run that was
        cut): each a step of its own, so every response is counted once."""
        for ident, (usage_id, response) in sorted(self.responses.items(), key=lambda item: (item[1][0], item[0])):
            self.session.steps.append(Step("event", model=response.model, usage=response.usage, collapsed=True,
                                           cost=Cost(response.cost, "log") if response.cost else None,
                                           title=f"Model call for {usage_id} ({ident})"))
        self.responses.clear()


def _thinking_blocks(blocks: Any) -> str:
    return "\n\n".join(text(mapping(block).get("thinking")) for block in listed(blocks) if mapping(block).get("thinking"))

