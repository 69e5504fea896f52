"""rlm-code's own recordings: native SessionEvent JSONL (`SessionRecorder`) and snapshot JSON
(`SessionStore` snapshots and checkpoints). Both carry the producer's StepState per step, so
both go through `steps.from_state_dict` and render the same steps."""
from __future__ import annotations

from datetime import timedelta
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
    from_state_dict,
    in_log_order,
    observation_output,
    rationale_of,
    stub_children,
    to_steps,
)
from replay_site.readers.timestamps import utc_time

FORMAT = "rlm"


def _preview(data: dict[str, Any], key: str, length_key: str) -> str:
    body = text(data.get(key))
    total = count(data.get(length_key))
    # Previews are cut at 500 characters by the producer; say so rather than pass a cut text as whole.
    return f"{body}\n\n… ({total} characters in all)" if total > len(body) else body


class _NativeRun:
    """The state of one native event stream while it is read."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.states: dict[int, StepState] = {}
        self.llm_usage: dict[int, Usage] = {}
        self.tokens_used: dict[int, int] = {}
        self.spawned: dict[str, dict[str, Any]] = {}
        self.variables: dict[str, Any] = {}
        self.others: list[tuple[int, Step]] = []
        self.line = 0
        # Memory and variables logged before the first step are what the first step starts from.
        self.notes: list[str] = []
        self.initial_variables: dict[str, Any] = {}
        self.task = self.environment = self.model = self.final_answer = ""
        self.completed: bool | None = None
        self.total_reward: float | None = None
        self.total_tokens: int | None = None

    def state(self, step: int) -> StepState:
        if step not in self.states:
            self.states[step] = StepState(number=step, model=self.model or None, line=self.line)
        return self.states[step]

    def event(self, line: int, event: dict[str, Any]) -> None:
        self.line = line
        kind = event.get("event_type")
        data = as_dict(event.get("data"))
        step = event.get("step") if isinstance(event.get("step"), int) else 0
        when = utc_time(event.get("timestamp"))
        if kind == "session_start":
            self.task, self.environment = text(data.get("task")), text(data.get("environment"))
            self.model = text(data.get("model"))
            self.session.started_at = when
        elif kind == "session_end":
            self.completed = data["completed"] if isinstance(data.get("completed"), bool) else self.completed
            self.total_reward = number(data.get("total_reward"))
            self.total_tokens = count(data.get("total_tokens")) or None
            self.session.ended_at = when
        elif kind == "step_start":
            self.state(step).timestamp = self.state(step).timestamp or when
        elif kind == "step_action":
            state, action = self.state(step), as_dict(data.get("action"))
            state.action, state.action_type = action, text(action.get("action"))
            state.code, state.rationale = text(action.get("code")) or None, rationale_of(action, data.get("rationale"))
        elif kind == "step_result":
            state, observation = self.state(step), as_dict(data.get("observation"))
            state.observation = observation
            state.output, state.error = observation_output(observation)
            state.success = data["success"] if isinstance(data.get("success"), bool) else observation.get("success")
            state.reward, state.cumulative_reward = number(data.get("reward")), number(data.get("cumulative_reward"))
            state.duration_ms = number(event.get("duration_ms"))
            self.tokens_used[step] = count(data.get("tokens_used"))
        elif kind == "step_end":
            from_state_dict(data, self.state(step))
            self.tokens_used.setdefault(step, count(data.get("tokens_used")))
        elif kind == "llm_request":
            self.state(step).details.append(Detail("LLM request", _preview(data, "prompt_preview", "prompt_length")))
            self.state(step).model = text(data.get("model")) or self.state(step).model
        elif kind == "llm_response":
            self.state(step).details.append(Detail("LLM response", _preview(data, "response_preview", "response_length")))
            usage = Usage(input=count(data.get("tokens_in")), output=count(data.get("tokens_out")))
            self.llm_usage[step] = self.llm_usage.get(step, Usage()) + usage
        elif kind == "child_spawn":
            self.state(step)  # the spawning step exists even if the log lost its other events
            info = self.spawned.setdefault(text(data.get("child_id")), {"step": step})
            info.update(task=text(data.get("task")), depth=data.get("depth"))
        elif kind == "child_result":
            info = self.spawned.setdefault(text(data.get("child_id")), {"step": step})
            info.update(success=data.get("success"), result=text(data.get("result_preview")))
        elif kind == "memory_update":
            notes = data.get("notes")
            if not isinstance(notes, list):
                self.session.warn("warning", "memory_update without a list of notes, ignored", line)
            elif step in self.states or step > 0:
                self.state(step).memory_notes = [text(note) for note in notes]
            else:
                self.notes = [text(note) for note in notes]
        elif kind == "variable_update":
            # Only a preview is logged; step_end's full values replace it when present.
            self.variables[text(data.get("name"))] = text(data.get("preview"))
            if step in self.states or step > 0:
                self.state(step).variables = dict(self.variables)
            else:
                self.initial_variables = dict(self.variables)
        elif kind == "final_detected":
            self.final_answer = text(data.get("answer")) or self.final_answer
            self.completed = data["completed"] if isinstance(data.get("completed"), bool) else True
        elif kind == "error":
            self.state(step).error_events.append(text(data.get("error")))
        elif kind == "checkpoint":
            at = data.get("step") if isinstance(data.get("step"), int) else step
            self.state(at).checkpoints.append(text(data.get("checkpoint_name")) or f"checkpoint_{at}")
        elif kind == "state_snapshot":
            self.state(step).details.append(Detail("state snapshot", text(data), "json"))
        else:
            self.unknown(line, event)

    def unknown(self, line: int, event: dict[str, Any]) -> None:
        kind = text(event.get("event_type")) or "?"
        stub = Step(kind="event", timestamp=utc_time(event.get("timestamp")), title=kind, details=[Detail("raw event", text(event), "json")])
        self.others.append((line, stub))
        self.session.warn("unknown_event", f"unknown event_type {kind!r}, shown as a raw event", line)
        self.session.not_understood(EVENT_KINDS.kind(event))

    def finish(self) -> None:
        states = [self.states[key] for key in sorted(self.states)]
        notes, variables = self.notes, self.initial_variables
        for state in states:
            # Memory and variables as they stood at this step: what the last update left.
            notes = state.memory_notes if state.memory_notes is not None else notes
            variables = state.variables if state.variables is not None else variables
            state.memory_notes, state.variables = notes, variables
            if state.number in self.llm_usage:
                state.usage = self.llm_usage[state.number]
            elif self.tokens_used.get(state.number):
                state.usage = Usage(input=self.tokens_used[state.number])
        stub_children(self.session, states, self.spawned)
        self.session.steps = in_log_order(states, self.others)
        self.session.number_steps()
        self.session.title = self.task or self.session.id
        if self.model:
            self.session.declared_models = [self.model]
        add_run_facts(
            self.session,
            task=self.task,
            environment=self.environment,
            completed=self.completed,
            final_answer=self.final_answer,
            total_reward=self.total_reward,
            total_tokens=self.total_tokens,
        )


def read_native(path: Path, label: str) -> Session:
    session = Session(id=path.name.removesuffix(".jsonl"), format=FORMAT, source=label)
    run = _NativeRun(session)
    for line, event in jsonl.iter_objects(path, session.problems, label, session.records, EVENT_KINDS, exact_integers=True):
        run.event(line, event)
    run.finish()
    return session


def read_snapshot(path: Path, label: str) -> Session:
    session = Session(id=path.stem, format=FORMAT, source=label)
    data = jsonl.load_json(path, session.problems, label) or {}
    model = text(data.get("model"))
    states = []
    for index, item in enumerate(data.get("steps") or [], start=1):
        if not isinstance(item, dict):
            session.warn("bad_line", f"steps[{index - 1}] is not an object, skipped")
            continue
        state = from_state_dict(item, StepState(number=count(item.get("step")) or index, model=model or None))
        if not state.output and not state.error and state.observation:
            state.output, state.error = observation_output(state.observation)
        states.append(state)
    metadata = as_dict(data.get("metadata"))
    if metadata.get("checkpoint_name") and states:
        at = count(data.get("step")) or states[-1].number
        target = next((state for state in states if state.number == at), states[-1])
        target.checkpoints.append(text(metadata["checkpoint_name"]))
    stub_children(session, states, {})
    session.steps = to_steps(states)
    session.number_steps()
    session.title = text(data.get("task")) or session.id
    session.declared_models = [model] if model else []
    session.ended_at = utc_time(data.get("created_at"))
    duration = number(data.get("duration_seconds"))
    if session.ended_at and duration is not None and session.ended_at.tzinfo:
        session.started_at = session.ended_at - timedelta(seconds=duration)
    add_run_facts(
        session,
        task=text(data.get("task")),
        environment=text(data.get("environment")),
        completed=data.get("completed") if isinstance(data.get("completed"), bool) else None,
        final_answer=text(data.get("final_answer")),
        total_reward=number(data.get("total_reward")),
        total_tokens=count(data.get("total_tokens")) or None,
        extra=[Fact("Snapshot", f"{text(data.get('snapshot_id'))} of session {text(data.get('session_id'))}")],
    )
    return session
