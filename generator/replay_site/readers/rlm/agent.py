"""rlm-code's native coding agent (0.1.12+, rlm_code/agent): one append-only journal per session,
`.rlm_code/agent/sessions/<id>/events.jsonl`, `{event_id, sequence, session_id, type, timestamp,
agent_id, parent_agent_id, data}` with 24 dotted event types. The root agent and every agent it
spawned write into the same journal, each under its own `agent_id`: one session each, the
spawned ones nested under their parent. The model's one tool is `python`; the effects a cell
asks for (`repo.read`, `shell.run`, `rlm.spawn` …) pass an approval gate and are calls too."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from replay_site.model import Cost, Detail, Fact, Session, Step, ToolCall, Usage, Variable
from replay_site.readers import jsonl
from replay_site.readers.fields import count, number, string, text
from replay_site.readers.fields import mapping as as_dict
from replay_site.readers.timestamps import utc_time

# AgentEventType, rlm_code/agent/events.py
AGENT_EVENTS = frozenset({
    "session.started", "session.resumed", "session.completed", "session.interrupted", "session.failed",
    "message.user", "model.requested", "model.response", "python.started", "python.finished",
    "python.interrupted", "effect.requested", "approval.requested", "approval.resolved", "effect.completed",
    "effect.failed", "kernel.checkpointed", "kernel.restored", "usage.updated", "agent.spawned",
    "agent.message.sent", "agent.steered", "agent.cancelled", "agent.deleted",
})
# The request (its response is the step), a cell's start (its end fills the call) and running
# totals (checked against the responses): left out of the page by design.
LINE_KINDS = jsonl.LineKinds(not_shown=frozenset({"model.requested", "python.started", "usage.updated"}))
_ENDS = {"session.completed": "completed", "session.interrupted": "interrupted", "session.failed": "failed"}
_COORDINATION = {"agent.message.sent": "Message sent to an agent", "agent.steered": "Agent steered",
                 "agent.cancelled": "Agent cancelled", "agent.deleted": "Agent deleted"}


def is_agent_event(obj: dict[str, Any] | None) -> bool:
    """A native agent journal line: one of its event types with the journal's own keys."""
    return isinstance(obj, dict) and isinstance(obj.get("type"), str) and obj["type"] in AGENT_EVENTS \
        and "session_id" in obj and "sequence" in obj


class _Agent:
    """One agent's session, built from its events in journal order."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.model: str | None = None
        self.calls: dict[str, tuple[ToolCall, Step]] = {}  # python calls by id, effects by event id
        self.open_effect: tuple[ToolCall, Step] | None = None
        self.last_step: Step | None = None
        self.counted = Usage()
        self.reported: Usage | None = None  # the runtime's own running total

    def add(self, step: Step) -> Step:
        step.model = step.model or (self.model if step.kind == "assistant" else None)
        self.session.steps.append(step)
        if step.kind == "assistant":
            self.last_step = step
        return step

    def take(self, kind: str, data: dict[str, Any], when) -> None:
        session = self.session
        if kind in ("session.started", "session.resumed"):
            self.model = string(data.get("model")) or self.model
            session.cwd = session.cwd or string(data.get("repository"))
            session.started_at = session.started_at or when
            if kind == "session.resumed":
                self.add(Step("event", timestamp=when, title="Session resumed", collapsed=True))
        elif kind == "message.user":
            self._message(data, when)
        elif kind == "model.response":
            self._response(data, when)
        elif kind in ("python.finished", "python.interrupted"):
            self._cell(data, kind == "python.interrupted")
        elif kind == "effect.requested":
            self._effect(data, when)
        elif kind in ("approval.requested", "approval.resolved", "effect.completed", "effect.failed"):
            self._effect_news(kind, data)
        elif kind == "kernel.checkpointed":
            saved = data.get("saved") if isinstance(data.get("saved"), list) else []
            found = self.calls.get(text(data.get("tool_call_id")))
            if found:
                found[1].checkpoint = "Python state saved: " + (", ".join(map(text, saved)) or "nothing")
        elif kind == "kernel.restored":
            restored = data.get("restored") if isinstance(data.get("restored"), list) else []
            self.add(Step("event", timestamp=when, title=f"Python state restored ({len(restored)} name(s))", collapsed=True,
                          text=", ".join(map(text, restored))))
        elif kind == "usage.updated":
            self._reported(data)
        elif kind in _ENDS:
            self._end(kind, data, when)
        elif kind in _COORDINATION:
            said = string(data.get("message")) or string(data.get("content")) or string(data.get("reason")) or ""
            target = string(data.get("agent_id")) or string(data.get("target_agent_id"))
            title = _COORDINATION[kind] + (f" ({target})" if target else "")
            self.add(Step("event", timestamp=when, title=title, text=said, collapsed=not said,
                          details=[Detail("raw event", text(data), "json")]))
        session.ended_at = when or session.ended_at

    def _message(self, data: dict[str, Any], when) -> None:
        message = as_dict(data.get("message"))
        content = text(message.get("content"))
        sender = string(data.get("sender_agent_id"))
        if sender:
            what = "Steering from agent" if data.get("steer") is True else "Message from agent"
            self.add(Step("context", timestamp=when, title=f"{what} {sender}", text=content))
        else:
            self.add(Step("user", timestamp=when, text=content))

    def _response(self, data: dict[str, Any], when) -> None:
        message, response = as_dict(data.get("message")), as_dict(data.get("response"))
        raw = as_dict(response.get("usage"))
        usage = Usage(input=count(raw.get("input_tokens")), output=count(raw.get("output_tokens")))
        self.counted = self.counted + usage
        step = self.add(Step("assistant", timestamp=when, text=text(message.get("content") or response.get("content")),
                             usage=usage or None))
        cost = number(raw.get("cost"))
        if cost:  # the runtime logs 0.0 when the provider gave no price
            step.cost = Cost(cost, "log")
        calls = message.get("tool_calls") if isinstance(message.get("tool_calls"), list) else response.get("tool_calls")
        for raw_call in calls if isinstance(calls, list) else []:
            raw_call = as_dict(raw_call)
            arguments = as_dict(raw_call.get("arguments"))
            call = ToolCall(name=text(raw_call.get("name")) or "python", id=string(raw_call.get("id")),
                            arguments=arguments, code=string(arguments.get("code")), language="python")
            call.missing_result = True  # until its cell's end event comes
            step.tool_calls.append(call)
            if call.id:
                self.calls[call.id] = (call, step)
        self._reported(data)

    def _cell(self, data: dict[str, Any], interrupted: bool) -> None:
        found = self.calls.get(text(data.get("tool_call_id")))
        if found is None:
            return
        call, step = found
        result = as_dict(data.get("result"))
        parts = [text(result.get(key)) for key in ("stdout", "stderr") if text(result.get(key))]
        error = string(result.get("error"))
        call.output = "\n".join([*parts, *([error] if error and error not in parts else [])])
        call.is_error = interrupted or result.get("status") not in ("ok", None)
        call.missing_result = False
        duration = number(result.get("duration_ms"))
        call.duration_s = duration / 1000 if duration is not None else None
        variables = as_dict(result.get("variables"))
        step.variables = [Variable(str(name), text(value)) for name, value in variables.items()]

    def _effect(self, data: dict[str, Any], when) -> None:
        step = self.last_step or self.add(Step("assistant", timestamp=when))
        name = ".".join(part for part in (text(data.get("capability")), text(data.get("method"))) if part) or "effect"
        call = ToolCall(name=name, id=string(data.get("_event_id")),
                        arguments={key: data[key] for key in ("args", "kwargs") if key in data}, missing_result=True)
        step.tool_calls.append(call)
        self.open_effect = (call, step)
        if call.id:
            self.calls[call.id] = (call, step)

    def _effect_news(self, kind: str, data: dict[str, Any]) -> None:
        found = self.calls.get(text(data.get("effect_event_id")))
        if found is None:
            return
        call = found[0]
        if kind == "approval.requested":
            reasons = data.get("reasons") if isinstance(data.get("reasons"), list) else []
            note = f"approval asked (risk {text(data.get('risk')) or '?'})" + (": " + "; ".join(map(text, reasons)) if reasons else "")
        elif kind == "approval.resolved":
            note = f"approval {text(data.get('status')) or ('given' if data.get('approved') else 'refused')}"
            reason = string(data.get("reason"))
            note += f": {reason}" if reason else ""
        else:
            note = text(data.get("result")) if kind == "effect.completed" else text(data.get("error"))
            call.is_error, call.missing_result = kind == "effect.failed", False
        call.output = f"{call.output}\n{note}" if call.output else note

    def _reported(self, data: dict[str, Any]) -> None:
        raw = data.get("usage")
        if isinstance(raw, dict):
            self.reported = Usage(input=count(raw.get("input_tokens")), output=count(raw.get("output_tokens")))

    def _end(self, kind: str, data: dict[str, Any], when) -> None:
        status = _ENDS[kind]
        self.session.status = status
        self._reported(data)
        reason = string(data.get("reason"))
        if status == "failed":
            self.add(Step("event", timestamp=when, title="Session failed", error=text(data.get("final_response")) or reason or "failed"))
        elif status == "interrupted":
            self.add(Step("event", timestamp=when, title="Session interrupted" + (f" ({reason})" if reason else ""),
                          text=text(data.get("final_response"))))

    def finish(self) -> None:
        """The runtime's running total against the responses counted: a shortfall is a lower bound."""
        reported = self.reported
        if reported is not None and reported.total > self.counted.total:
            last = next((step for step in reversed(self.session.steps) if step.usage), None)
            if last is not None:
                last.usage.partial = True
            self.session.facts.append(Fact("Usage incomplete", f"the session's own total is {reported.total:,} tokens, its "
                                           f"responses add up to {self.counted.total:,}: tokens and cost are lower bounds"))
        if self.model:
            self.session.declared_models.append(self.model)


def read_agent(path: Path, label: str, also: tuple[tuple[Path, str], ...] = ()) -> Session:
    """The root agent's session of one journal, the agents it spawned as its children (nested
    as they spawned each other). `also`: the session's approvals audit, counted as not shown."""
    problems: list = []
    root = Session(id=path.parent.name, format="rlm", source=label)
    agents: dict[str, _Agent] = {"root": _Agent(root)}
    spawned: dict[str, dict[str, Any]] = {}
    for line, event in jsonl.iter_objects(path, problems, label, root.records, LINE_KINDS):
        kind = event.get("type") if isinstance(event.get("type"), str) else None
        agent_id = string(event.get("agent_id")) or "root"
        if agent_id == "root" and string(event.get("session_id")):
            root.id = event["session_id"]
        data = {**as_dict(event.get("data")), "_event_id": event.get("event_id")}
        agent = agents.get(agent_id) or agents.setdefault(agent_id, _child(root, agent_id, event, spawned))
        when = utc_time(event.get("timestamp"))
        if kind == "agent.spawned":
            spawned[text(data.get("agent_id"))] = data
            if agent.open_effect is not None:
                call, step = agent.open_effect
                call.child_session_id = f"{root.id}/{text(data.get('agent_id'))}"
                step.child_session_ids.append(call.child_session_id)
        elif kind in AGENT_EVENTS:
            agent.take(kind, data, when)
        else:
            root.warn("unknown_event", f"unknown native agent event {text(kind)!r}, skipped", line)
            root.not_understood(LINE_KINDS.kind(event))
    root.problems.extend(problems)
    for other, other_label in also:
        for _ in jsonl.iter_objects(other, root.problems, other_label):
            root.count_record("approval audit", "not_shown")
    for agent_id, agent in agents.items():
        agent.finish()
        agent.session.number_steps()
        if agent_id != "root":
            _nest(root, agents, agent_id, spawned)
    root.title = next((step.text for step in root.steps if step.kind == "user"), "") or root.id
    return root


def _child(root: Session, agent_id: str, event: dict[str, Any], spawned: dict[str, dict[str, Any]]) -> _Agent:
    child = Session(id=f"{root.id}/{agent_id}", format="rlm", source=root.source, relation="subagent")
    child.parent_id = string(event.get("parent_agent_id")) or string(spawned.get(agent_id, {}).get("parent_agent_id")) or "root"
    return _Agent(child)


def _nest(root: Session, agents: dict[str, _Agent], agent_id: str, spawned: dict[str, dict[str, Any]]) -> None:
    child = agents[agent_id].session
    parent = agents.get(child.parent_id or "root", agents["root"]).session
    child.parent_id = parent.id
    record = spawned.get(agent_id, {})
    child.title = string(record.get("task")) or next((s.text for s in child.steps if s.kind == "user"), "") or agent_id
    if not child.declared_models and string(record.get("model")):
        child.declared_models.append(record["model"])
    parent.children.append(child)
