"""What every rlm-code shape shares: one step's state, turned into a model Step, and the header facts.

Each shape (native events, snapshot, legacy trajectory, run file) first fills a `StepState`
(the producer's own StepState plus what the events add: token split, LLM previews, children,
checkpoints), then `to_steps` turns the list into model Steps. Going through one converter is
what makes a snapshot and the event JSONL of the same run render the same steps.

Error accounting (counted once per failure): a step whose action ran something becomes one
ToolCall named after the action; its failure is `ToolCall.is_error` and `Step.error` stays
empty. Only a failure with no tool call to carry it (a failing `final`, an unsupported action,
an `error` event on a step that otherwise succeeded) becomes `Step.error`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from replay_site.diffs import change_from_texts, diff_texts
from replay_site.measures import finite, measured
from replay_site.model import Detail, Fact, FileChange, Session, Step, ToolCall, Usage, Variable
from replay_site.readers.fields import count, number, string, text
from replay_site.readers.fields import mapping as as_dict
from replay_site.readers.jsonl import LineKinds
from replay_site.readers.timestamps import utc_time

# Action fields shown elsewhere (title, code, text) and so left out of the tool call's arguments.
_SHOWN_ELSEWHERE = {"action", "code", "rationale", "reasoning", "done", "final_response"}


# Session events and trajectories name a line's kind `event_type` (run files `type`).
EVENT_KINDS = LineKinds(name=lambda event: event.get("event_type") if isinstance(event.get("event_type"), str) else None)


@dataclass
class StepState:
    number: int
    timestamp: datetime | None = None
    action_type: str = ""
    action: dict[str, Any] = field(default_factory=dict)
    code: str | None = None
    rationale: str = ""
    success: bool | None = None
    output: str = ""
    error: str = ""
    reward: float | None = None
    cumulative_reward: float | None = None
    duration_ms: float | None = None
    usage: Usage | None = None
    memory_notes: list[str] | None = None
    variables: dict[str, Any] | None = None
    observation: dict[str, Any] = field(default_factory=dict)
    details: list[Detail] = field(default_factory=list)
    error_events: list[str] = field(default_factory=list)
    child_ids: list[str] = field(default_factory=list)
    checkpoints: list[str] = field(default_factory=list)
    model: str | None = None
    # Trajectory steps have no action type; their title says what they are instead.
    title: str | None = None
    line: int = 0  # where the step first shows in its file, to keep raw-event stubs in log order


def rationale_of(action: dict[str, Any], fallback: Any = None) -> str:
    # step_action writes str(None) == "None" as its rationale when the action had none; the
    # action dict's own field is the truth, the event's copy only a fallback.
    for value in (action.get("rationale"), action.get("reasoning"), fallback):
        if isinstance(value, str) and value and value != "None":
            return value
    return ""


def from_state_dict(data: dict[str, Any], state: StepState) -> StepState:
    """Fill `state` from the producer's StepState dict (snapshot steps, step_end events)."""
    action = as_dict(data.get("raw_action"))
    state.timestamp = utc_time(data.get("timestamp")) or state.timestamp
    state.action = action or state.action
    state.action_type = text(data.get("action_type")) or text(action.get("action")) or state.action_type
    state.code = text(data.get("action_code")) or text(action.get("code")) or state.code
    state.rationale = rationale_of(action, data.get("action_rationale")) or state.rationale
    if isinstance(data.get("success"), bool):
        state.success = data["success"]
    state.output = text(data.get("output")) or state.output
    state.error = text(data.get("error")) or state.error
    state.reward = number(data.get("reward")) if "reward" in data else state.reward
    state.cumulative_reward = number(data.get("cumulative_reward")) if "cumulative_reward" in data else state.cumulative_reward
    state.duration_ms = number(data.get("duration_ms")) if "duration_ms" in data else state.duration_ms
    if state.usage is None and count(data.get("tokens_used")):
        # Only a total is recorded: counting it as input keeps the total right, and an
        # estimated cost stays a lower bound (input is the cheaper side).
        state.usage = Usage(input=count(data.get("tokens_used")))
    if isinstance(data.get("memory_notes"), list):
        state.memory_notes = [text(note) for note in data["memory_notes"]]
    if isinstance(data.get("variables"), dict):
        state.variables = data["variables"]
    state.observation = as_dict(data.get("raw_observation")) or state.observation
    return state


def observation_output(observation: dict[str, Any]) -> tuple[str, str]:
    """(output, error) as the producer reads them from an observation."""
    output = observation.get("output", observation.get("stdout", ""))
    error = observation.get("error", observation.get("stderr", ""))
    return text(output), text(error)


def _variables(current: dict[str, Any] | None, previous: dict[str, Any]) -> list[Variable]:
    if not current:
        return []
    return [
        Variable(
            name=str(name),
            value=text(value),
            type=type(value).__name__,
            # Changed at this step: new, or a different value than the step before recorded.
            changed=name not in previous or previous[name] != value,
        )
        for name, value in current.items()
    ]


def _changes(action_type: str, action: dict[str, Any]) -> list[FileChange]:
    """The edits of the DSPy environment's file actions (rlm_code/rlm/environments.py):
    write_file writes `content` whole (what was there before is not logged); patch_file
    writes `content` whole, or replaces `search` by `replace`."""
    path = string(action.get("path"))
    content, search = string(action.get("content")), string(action.get("search"))
    if path is None or action_type not in ("write_file", "patch_file"):
        return []
    if action_type == "write_file":
        return [change_from_texts(path, None, content)] if content else []
    if content:
        return [FileChange(path, "modify", diff_texts("", content))]
    return [FileChange(path, "modify", diff_texts(search, text(action.get("replace"))))] if search else []


def _tool_call(state: StepState, failed: bool) -> ToolCall | None:
    if state.action_type == "final" or not (state.action_type or state.code):
        return None
    arguments = {key: value for key, value in state.action.items() if key not in _SHOWN_ELSEWHERE and value is not None}
    output = state.output
    if state.error:
        output = f"{output}\n{state.error}" if output and not output.endswith("\n") else output + state.error
    command = None if state.code else string(state.action.get("command"))
    return ToolCall(
        name=state.action_type or "code",
        arguments=arguments or None,
        code=state.code or command,
        language="python" if state.code else "bash" if command else None,
        changes=_changes(state.action_type, state.action),
        output=output or None,
        is_error=failed,
        duration_s=state.duration_ms / 1000 if state.duration_ms is not None else None,
        child_session_id=state.child_ids[0] if state.child_ids else None,
        # An action the log never reports back on (no result event, no output, no verdict).
        missing_result=state.success is None and not state.observation and not output and not state.child_ids,
    )


def _step_text(state: StepState) -> str:
    parts = [state.rationale] if state.rationale else []
    final = text(state.action.get("final_response"))
    if state.action_type == "final" and final:
        parts.append(f"**Final answer:** {final}")
    return "\n\n".join(parts)


def to_step(state: StepState, previous_variables: dict[str, Any]) -> Step:
    failed = state.success is False or (state.success is None and bool(state.error_events))
    call = _tool_call(state, failed)
    error = None
    if call is None and failed:
        error = state.error or next(iter(state.error_events), "") or "step failed (success = false)"
    else:
        # An error event repeats the failure its tool call already carries; one the
        # call does not explain (the step otherwise succeeded) is a step error of its own.
        shown = f"{state.output}\n{state.error}"
        extra = [message for message in state.error_events if message.strip() not in shown]
        if extra and not failed:
            error = "\n\n".join(extra)
    details = list(state.details)
    if call is None and state.observation and state.action_type != "final":
        details.append(Detail("observation", text(state.observation), "json"))
    return Step(
        kind="assistant",
        timestamp=state.timestamp,
        model=state.model,
        title=state.title or state.action_type or None,
        text=_step_text(state),
        tool_calls=[call] if call else [],
        usage=state.usage,
        error=error,
        details=details,
        duration_s=state.duration_ms / 1000 if state.duration_ms is not None else None,
        reward=state.reward,
        cumulative_reward=state.cumulative_reward,
        variables=_variables(state.variables, previous_variables),
        memory_notes=list(state.memory_notes or []),
        child_session_ids=list(state.child_ids),
        checkpoint=", ".join(state.checkpoints) or None,
    )


def to_steps(states: list[StepState]) -> list[Step]:
    steps = []
    previous: dict[str, Any] = {}
    for state in states:
        steps.append(to_step(state, previous))
        if state.variables is not None:
            previous = state.variables
    return steps


def in_log_order(states: list[StepState], others: list[tuple[int, Step]]) -> list[Step]:
    """The steps of `states` with the `others` (line, step) stubs placed where the log had them."""
    placed = [(state.line, step) for state, step in zip(states, to_steps(states))]
    return [step for _, step in sorted(placed + others, key=lambda item: item[0])]


def add_run_facts(
    session: Session,
    *,
    task: str = "",
    environment: str = "",
    completed: bool | None = None,
    final_answer: str = "",
    total_reward: float | None = None,
    total_tokens: int | None = None,
    extra: list[Fact] | None = None,
) -> None:
    """The header facts every shape has some of; figures the log lacks are left out, not zeroed."""
    if completed is True:
        session.outcome = "completed"  # run_end / session_end / final say the run succeeded
    facts = session.facts
    if task:
        facts.append(Fact("Task", task))
    if environment:
        facts.append(Fact("Environment", environment))
    if completed is not None:
        facts.append(Fact("Completed", "yes" if completed else "no"))
        session.status = "completed" if completed else "incomplete"
    if final_answer:
        facts.append(Fact("Final answer", final_answer))
    if total_reward is not None:
        facts.append(Fact("Total reward", measured(total_reward)))
    unsummed = [step.number for step in session.steps if step.reward is not None and finite(step.reward) is None]
    if unsummed:
        facts.append(Fact("Rewards not summed", f"NaN or ∞ at step {', '.join(map(str, unsummed))}"))
    judged = [step for step in session.steps if step.kind == "assistant"]
    if judged:
        ok = sum(1 for step in judged if not step.error_count)
        facts.append(Fact("Success rate", f"{ok / len(judged):.0%} ({ok} of {len(judged)} steps)"))
    if total_tokens:
        facts.append(Fact("Total tokens", str(total_tokens)))
    # Checkpoints need no fact: the page header lists every step's checkpoint with a link.
    facts.extend(extra or [])


def delegate_results(observation: dict[str, Any]) -> list[dict[str, Any]]:
    """The child runs a `delegate` step reports in its observation (every shape keeps them)."""
    results = observation.get("results") if observation.get("mode") == "delegate" else None
    return [item for item in results if isinstance(item, dict) and item.get("run_id")] if isinstance(results, list) else []


def stub_children(
    parent: Session,
    states: list[StepState],
    spawned: dict[str, dict[str, Any]],
    known: dict[str, Session] | None = None,
) -> None:
    """Nest and link the children a parent's log names: child_spawn/child_result events
    (`spawned`, keyed by child id, each with the `step` that spawned it) and delegate results.
    A child with a session of its own (`known`, e.g. a delegated run file) is linked as it is;
    the rest become stub sessions holding what the parent logged about them."""
    known = known or {}
    linked: set[str] = set()
    for state in [*states, None]:
        found: dict[str, dict[str, Any]] = {}
        if state is not None:
            for item in delegate_results(state.observation):
                found[str(item["run_id"])] = {
                    "task": text(item.get("task")),
                    "success": item.get("completed"),
                    "result": text(item.get("final_response")),
                    "extra": [Fact("Steps", text(item.get("steps"))), Fact("Total reward", text(item.get("total_reward")))],
                }
        for child_id, info in spawned.items():
            # The last pass (state None) picks up children spawned outside any step.
            if (state is None and child_id not in linked) or (state is not None and info.get("step") == state.number):
                merged = found.setdefault(child_id, {})
                for key, value in info.items():
                    if value not in (None, "") or key not in merged:
                        merged[key] = value
        for child_id, info in found.items():
            if child_id in linked:
                continue
            linked.add(child_id)
            child = known.get(child_id)
            if child is None:
                # Only what the parent logged is known of this child: it is told where it was
                # spawned (or in the header), never made a session without steps.
                described = _child_summary(child_id, info)
                if state is not None:
                    state.details.append(Detail(f"Child agent {child_id}", described))
                else:
                    parent.facts.append(Fact(f"Child agent {child_id}", described))
                continue
            _describe(child, child_id, info)
            child.parent_id = parent.id
            parent.children.append(child)
            if state is not None:
                state.child_ids.append(child.id)


def _describe(child: Session, child_id: str, info: dict[str, Any]) -> None:
    """Add what the parent logged about a child to the child's own session, without repeating it."""
    have = {fact.label for fact in child.facts}
    if info.get("task") and child.title in ("", child.id, child_id):
        child.title = info["task"]
    for label, value in (("Task", info.get("task")), ("Result", info.get("result"))):
        if value and label not in have:
            child.facts.append(Fact(label, value))
    if isinstance(info.get("success"), bool) and "Succeeded" not in have:
        child.facts.append(Fact("Succeeded", "yes" if info["success"] else "no"))
        child.status = child.status or ("completed" if info["success"] else "failed")


def _child_summary(child_id: str, info: dict[str, Any]) -> str:
    """What a parent logged about a child that has no log here, as lines of text."""
    lines = [f"Task: {info['task']}"] if info.get("task") else []
    depth = info.get("depth")
    if isinstance(depth, int) and not isinstance(depth, bool):
        lines.append(f"Depth: {depth}")
    if isinstance(info.get("success"), bool):
        lines.append("Succeeded: " + ("yes" if info["success"] else "no"))
    if info.get("result"):
        lines.append(f"Result: {info['result']}")
    lines.extend(f"{fact.label}: {fact.value}" for fact in info.get("extra", []) if fact.value)
    lines.append(f"(no log of child {child_id} was found beside this one)")
    return "\n".join(lines)
