"""rlm-code's observability sink (rlm_code/rlm/observability.py, LocalJSONLSink): beside the run
files, `observability/steps/<run_id>.jsonl` holds one line a step (`step`, `action`, `reward`,
`cumulative_reward`, `success`) and `observability/runs.jsonl` one summary a finished run (task,
environment, completed, steps, total_reward). A steps file whose run file is found is merged into
it (the run file says all it says); alone, it is the run's session, titled by its summary."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from replay_site.model import Fact, Session, Step
from replay_site.readers import jsonl
from replay_site.readers.fields import count, number, string, text
from replay_site.readers.timestamps import utc_time

RUNS = "runs.jsonl"
STEP_LINES = jsonl.LineKinds(name=lambda obj: "observed step")
SUMMARY_LINES = jsonl.LineKinds(name=lambda obj: "run summary")


def is_step_line(obj: dict[str, Any] | None) -> bool:
    return isinstance(obj, dict) and "run_id" in obj and "cumulative_reward" in obj and "step" in obj \
        and "type" not in obj and "event_type" not in obj


def is_summary_line(obj: dict[str, Any] | None) -> bool:
    return isinstance(obj, dict) and "run_id" in obj and "step_count_observed" in obj and "run_path" in obj


def read_observed(path: Path, label: str) -> Session:
    """One run's observed steps, with its summary from the sink's runs.jsonl when there is one."""
    problems: list = []
    session = Session(id=path.stem, format="rlm", source=label)
    for _, obj in jsonl.iter_objects(path, problems, label, session.records, STEP_LINES):
        session.id = string(obj.get("run_id")) or session.id
        action = string(obj.get("action")) or "step"
        number_in_run = count(obj.get("step"))
        step = Step("assistant", timestamp=utc_time(obj.get("timestamp")), title=f"Step {number_in_run}: {action}",
                    reward=number(obj.get("reward")), cumulative_reward=number(obj.get("cumulative_reward")))
        if obj.get("success") is False:
            step.error = "the step did not succeed (the sink keeps no more of it)"
        session.steps.append(step)
    session.problems.extend(problems)
    stamps = [step.timestamp for step in session.steps if step.timestamp]
    session.started_at, session.ended_at = (min(stamps), max(stamps)) if stamps else (None, None)
    summary = _summary(path.parent.parent / RUNS, session.id)
    session.title = text(summary.get("task")) or session.id
    if summary:
        session.status = "completed" if summary.get("completed") is True else "incomplete"
        for label_, key in (("Environment", "environment"), ("Total reward", "total_reward"), ("Steps", "steps")):
            if summary.get(key) not in (None, ""):
                session.facts.append(Fact(label_, text(summary[key])))
    session.number_steps()
    return session


def read_summaries(path: Path, label: str) -> Session:
    """The sink's runs.jsonl: one step a finished run."""
    problems: list = []
    session = Session(id=f"{path.parent.name}/{path.name}", format="rlm", source=label, title="rlm-code run summaries")
    for _, obj in jsonl.iter_objects(path, problems, label, session.records, SUMMARY_LINES):
        done = "completed" if obj.get("completed") is True else "not completed"
        session.steps.append(Step("event", timestamp=utc_time(obj.get("timestamp")),
                                  title=f"Run {text(obj.get('run_id'))}: {done}, {count(obj.get('steps'))} step(s), "
                                        f"reward {text(obj.get('total_reward'))}",
                                  text=text(obj.get("task"))))
    session.problems.extend(problems)
    session.number_steps()
    return session


def _summary(runs: Path, run_id: str) -> dict[str, Any]:
    """The last summary line of `run_id` in the sink's runs.jsonl ({} when there is none)."""
    if not runs.is_file():
        return {}
    found: dict[str, Any] = {}
    for _, obj in jsonl.iter_objects(runs, []):
        if obj.get("run_id") == run_id:
            found = obj
    return found
