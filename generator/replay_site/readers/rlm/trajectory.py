"""Legacy trajectory events (`TrajectoryLogger`): float epoch timestamps, `iteration` numbers.

The logger never writes `iteration_end`, so steps are built from the `iteration_*` events
directly (rlm-code's own replayer shows none). Child agents log into the same file: their
events carry `depth` > 0 and `parent_id` = the child's own id (set by `push_depth`), so events
are grouped by `parent_id` and each group becomes a session, nested under the group whose
`child_spawn` named it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from replay_site.model import Detail, Fact, Session, Step, Usage
from replay_site.readers import jsonl
from replay_site.readers.fields import count, number, text
from replay_site.readers.fields import mapping as as_dict
from replay_site.readers.rlm.steps import (
    EVENT_KINDS,
    StepState,
    add_run_facts,
    in_log_order,
    rationale_of,
    stub_children,
)
from replay_site.readers.timestamps import utc_time

FORMAT = "rlm"

# Events that describe the run's context rather than an action: shown on their step, collapsed.
_CONTEXT_EVENTS = {"context_load": "context loaded", "context_update": "context update", "memory_compact": "memory compaction"}
_LLM_EVENTS = {
    "llm_request": ("LLM request", "prompt"),
    "llm_response": ("LLM response", "response"),
    "sub_llm_request": ("sub-LLM request", "prompt"),
    "sub_llm_response": ("sub-LLM response", "response"),
}


class _Agent:
    """The events of one agent (the root run, or one child) while they are read."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.states: dict[int, StepState] = {}
        self.spawned: dict[str, dict[str, Any]] = {}
        self.others: list[tuple[int, Step]] = []  # context and raw-event stubs, by line
        self.line = 0
        self.task = self.final_answer = ""
        self.completed: bool | None = None
        self.total_tokens: int | None = None

    def state(self, iteration: int, when: Any = None) -> StepState:
        if iteration not in self.states:
            self.states[iteration] = StepState(number=iteration, timestamp=when, title=f"iteration {iteration}", line=self.line)
        return self.states[iteration]

    def add_usage(self, iteration: int, event: dict[str, Any]) -> None:
        # Every event's tokens_in/tokens_out is its own count (the producer's summary sums
        # them all the same way); run_end's tokens_in is the run total and is not added here.
        usage = Usage(input=count(event.get("tokens_in")), output=count(event.get("tokens_out")))
        if usage:
            state = self.state(iteration)
            state.usage = (state.usage or Usage()) + usage

    def event(self, line: int, event: dict[str, Any]) -> None:
        self.line = line
        kind = text(event.get("event_type"))
        data = as_dict(event.get("data"))
        iteration = event.get("iteration") if isinstance(event.get("iteration"), int) else 0
        when = utc_time(event.get("timestamp"))
        # A child agent has no run_start/run_end: its first and last events bound it.
        self.session.started_at = self.session.started_at or when
        self.session.ended_at = when or self.session.ended_at
        if kind == "run_start":
            self.task = text(data.get("task"))
            self.session.started_at = when
            if data.get("model"):
                self.session.declared_models = [text(data["model"])]
            if data.get("context_length") is not None:
                self.session.facts.append(Fact("Context length", text(data["context_length"])))
        elif kind == "run_end":
            self.session.ended_at = when
            self.completed = data["success"] if isinstance(data.get("success"), bool) else self.completed
            self.final_answer = text(data.get("answer")) or self.final_answer
            self.total_tokens = count(event.get("tokens_in")) or None
        elif kind == "iteration_start":
            self.state(iteration, when)
        elif kind == "iteration_reasoning":
            self.state(iteration, when).rationale = text(data.get("reasoning"))
        elif kind == "iteration_code":
            state = self.state(iteration, when)
            # The logger writes data.code; the docs show data.action (an action dict). Read both.
            action = data.get("action")
            if isinstance(action, dict):
                state.action, state.action_type = action, text(action.get("action"))
                state.code = text(action.get("code")) or None
                state.rationale = state.rationale or rationale_of(action)
            elif isinstance(action, str) and action:
                state.code = action
            state.code = text(data.get("code")) or state.code
            if state.code and not state.action_type:
                state.action_type = "code"
        elif kind == "iteration_output":
            state = self.state(iteration, when)
            state.output = text(data.get("output"))
            state.error = text(data.get("error"))
            if isinstance(data.get("success"), bool):
                state.success = data["success"]
            state.duration_ms = number(event.get("duration_ms"))
            self.add_usage(iteration, event)
        elif kind == "iteration_end":
            self.state(iteration, when)
        elif kind in _LLM_EVENTS:
            label, key = _LLM_EVENTS[kind]
            self.state(iteration, when).details.append(Detail(label, text(data.get(key) or data)))
            self.add_usage(iteration, event)
        elif kind == "child_spawn":
            info = self.spawned.setdefault(text(data.get("child_id")), {"step": iteration})
            info.update(task=text(data.get("task")), depth=event.get("depth"))
            self.state(iteration, when)
        elif kind == "child_result":
            info = self.spawned.setdefault(text(data.get("child_id")), {"step": iteration})
            info.update(success=data.get("success"), result=text(data.get("result")))
        elif kind == "final_detected":
            self.final_answer = text(data.get("answer"))
            self.completed = True if self.completed is None else self.completed
        elif kind == "error":
            self.state(iteration, when).error_events.append(text(data.get("error")) or text(data.get("traceback")))
        elif kind in _CONTEXT_EVENTS:
            detail = Detail(_CONTEXT_EVENTS[kind], text(data), "json")
            if iteration in self.states:
                self.states[iteration].details.append(detail)
            else:
                self.others.append((line, Step(kind="context", timestamp=when, title=kind, collapsed=True, details=[detail])))
        else:
            self.others.append((line, Step(kind="event", timestamp=when, title=kind or "?", details=[Detail("raw event", text(event), "json")])))
            self.session.warn("unknown_event", f"unknown event_type {kind!r}, shown as a raw event", line)
            self.session.not_understood(EVENT_KINDS.kind(event))

    def finish(self, children: dict[str, Session]) -> None:
        states = [self.states[key] for key in sorted(self.states)]
        # An iteration with only LLM calls and no reasoning/code still gets a step (nothing is
        # dropped); so does iteration 0 when events were logged before the first iteration.
        stub_children(self.session, states, self.spawned, children)
        self.session.steps = in_log_order(states, self.others)
        self.session.number_steps()
        self.session.title = self.task or self.session.title or self.session.id
        add_run_facts(self.session, task=self.task, completed=self.completed, final_answer=self.final_answer, total_tokens=self.total_tokens)


def read_trajectory(path: Path, label: str) -> Session:
    root = Session(id=path.name.removesuffix(".jsonl"), format=FORMAT, source=label)
    agents: dict[str | None, _Agent] = {None: _Agent(root)}
    for line, event in jsonl.iter_objects(path, root.problems, label, exact_integers=True):
        owner = event.get("parent_id") if isinstance(event.get("parent_id"), str) and event.get("parent_id") else None
        if owner not in agents:
            child = Session(id=f"{root.id}:{owner}", format=FORMAT, title=owner, source=label, parent_id=root.id)
            agents[owner] = _Agent(child)
        EVENT_KINDS.count(event, agents[owner].session.records)  # each agent's lines are its own
        agents[owner].event(line, event)
    # Children first, so a parent can nest its children's finished sessions.
    children = {key: agent.session for key, agent in agents.items() if key is not None}
    for key, agent in reversed(list(agents.items())):
        if key is not None:
            agent.session.facts.append(Fact("Child id", key))
        agent.finish(children)
    # A child whose child_spawn was never logged still belongs to this run: nest it at the top.
    nested = {id(child) for session in root.walk() for child in session.children}
    root.children.extend(child for child in children.values() if id(child) not in nested)
    return root
