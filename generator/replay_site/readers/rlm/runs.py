"""rlm-code run files (`RLMRunner`, `.rlm_code/rlm/runs/<run_id>.jsonl`): `{"type":"step"}` lines
and a closing `{"type":"final"}`. A `delegate` step starts child runs, each written to its own
run file with `depth` > 0 and `parent_run_id`; `find()` hands them over as `related` files and
they are nested here under the run that delegated them."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from replay_site.measures import finite
from replay_site.model import Detail, Fact, Session, Step, Usage
from replay_site.readers import jsonl
from replay_site.readers.fields import count, number, text
from replay_site.readers.fields import mapping as as_dict
from replay_site.readers.rlm.steps import (
    StepState,
    add_run_facts,
    delegate_results,
    in_log_order,
    observation_output,
    rationale_of,
    stub_children,
)
from replay_site.readers.timestamps import utc_time

FORMAT = "rlm"


def _usage(record: Any) -> Usage | None:
    record = as_dict(record)
    usage = Usage(input=count(record.get("prompt_tokens")), output=count(record.get("completion_tokens")))
    return usage or None


class _Run:
    def __init__(self, path: Path, label: str) -> None:
        self.session = Session(id=path.name.removesuffix(".jsonl"), format=FORMAT, source=label)
        self.states: list[StepState] = []
        # A step's usage includes its delegated children's calls; `own` is the step's own
        # (role_usage root + sub) for when those children are counted by their own sessions.
        self.own: dict[int, Usage | None] = {}
        self.first: dict[str, Any] = {}
        self.final: dict[str, Any] = {}
        self.cumulative = 0.0
        self.others: list[tuple[int, Step]] = []
        for line, record in jsonl.iter_objects(path, self.session.problems, label, self.session.records, exact_integers=True):
            self.record(line, record)
        head = self.final or self.first
        self.run_id = text(head.get("run_id")) or self.session.id
        self.session.id = self.run_id
        self.parent_run_id = text(head.get("parent_run_id")) or None
        self.depth = head.get("depth") if isinstance(head.get("depth"), int) else 0

    def record(self, line: int, record: dict[str, Any]) -> None:
        kind = record.get("type")
        self.first = self.first or record
        when = utc_time(record.get("timestamp"))
        self.session.started_at = self.session.started_at or when
        if kind == "step":
            self.states.append(self.step(record, when))
            self.states[-1].line = line
        elif kind == "final":
            self.final = record
            self.session.ended_at = when
        else:
            self.others.append((line, Step(kind="event", timestamp=when, title=text(kind) or "?", details=[Detail("raw record", text(record), "json")])))
            self.session.warn("unknown_event", f"unknown record type {kind!r}, shown as a raw record", line)
            self.session.not_understood(jsonl.BY_TYPE.kind(record))

    def step(self, record: dict[str, Any], when: Any) -> StepState:
        action, observation = as_dict(record.get("action")), as_dict(record.get("observation"))
        output, error = observation_output(observation)
        success = observation.get("success")
        if not isinstance(success, bool):
            # The producer's rule: a step without a success flag succeeded unless it reports an error.
            success = not (observation.get("error") or observation.get("stderr"))
        reward = number(record.get("reward"))
        # Rounded so a sum of logged rewards reads 1.8, not 1.7999999999999998 (the producer's
        # own totals are rounded the same way); 12 places is far below any reward's precision.
        # NaN and ∞ (what Python's json writes for them) stay the step's value, never summed.
        self.cumulative = round(self.cumulative + (finite(reward) or 0.0), 12)
        execution = number(observation.get("execution_time"))
        state = StepState(
            number=count(record.get("step")) or len(self.states) + 1,
            timestamp=when,
            action_type=text(action.get("action")),
            action=action,
            code=text(action.get("code")) or None,
            rationale=rationale_of(action),
            success=success,
            output=output,
            error=error,
            reward=reward,
            # Run files do not log the running total; it is the sum of rewards so far.
            cumulative_reward=self.cumulative,
            duration_ms=execution * 1000 if execution is not None else None,
            usage=_usage(record.get("usage")),
            observation=observation,
        )
        roles = as_dict(record.get("role_usage"))
        if roles:
            own = [_usage(roles.get(role)) for role in ("root", "sub")]
            self.own[state.number] = sum((usage for usage in own if usage), Usage()) or None
        if record.get("planner_raw"):
            state.details.append(Detail("planner output", text(record["planner_raw"])))
        if record.get("branch"):
            state.details.append(Detail("branch candidates", text(record["branch"]), "json"))
        return state

    def finish(self, children: dict[str, Session]) -> None:
        for state in self.states:
            delegated = [str(item["run_id"]) for item in delegate_results(state.observation)]
            if delegated and all(run_id in children for run_id in delegated) and state.number in self.own:
                state.usage = self.own[state.number]
        stub_children(self.session, self.states, {}, children)
        # Child runs that no delegate result names still belong under their parent.
        nested = {id(child) for child in self.session.children}
        for child in children.values():
            if id(child) not in nested:
                child.parent_id = self.session.id
                self.session.children.append(child)
        self.session.steps = in_log_order(self.states, self.others)
        self.session.number_steps()
        final = self.final
        task = text(final.get("task") or self.first.get("task"))
        self.session.title = task or self.session.id
        extra = []
        framework = text(final.get("framework") or self.first.get("framework"))
        if framework:
            extra.append(Fact("Framework", framework))
        if self.depth:
            extra.append(Fact("Depth", str(self.depth)))
        if self.parent_run_id:
            extra.append(Fact("Parent run", self.parent_run_id))
        if final.get("cancelled") is True:
            extra.append(Fact("Cancelled", "yes"))
            self.session.outcome = "interrupted"
        totals = _usage(final.get("usage"))
        add_run_facts(
            self.session,
            task=task,
            environment=text(final.get("environment") or self.first.get("environment")),
            completed=final.get("completed") if isinstance(final.get("completed"), bool) else None,
            final_answer=text(final.get("final_response")),
            total_reward=number(final.get("total_reward")),
            total_tokens=totals.total if totals else None,
            extra=extra,
        )


def read_runs(paths: list[tuple[Path, str]]) -> list[Session]:
    """Read a run file and its delegated child run files; returns the top-level runs."""
    runs = [_Run(path, label) for path, label in paths]
    by_id = {run.run_id: run for run in runs}
    # Deepest first, so each parent nests children that already hold their own children.
    for run in sorted(runs, key=lambda item: -item.depth):
        children = {other.run_id: other.session for other in runs if other.parent_run_id == run.run_id}
        run.finish(children)
    return [run.session for run in runs if run.parent_run_id not in by_id]
