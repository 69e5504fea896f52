"""Any session as an ATIF trajectory (the Agent Trajectory Interchange Format, Harbor RFC 0001).

ATIF is what benchmark harnesses and several agents exchange trajectories in: a root object
with `steps` (user, agent or system), each agent step's `tool_calls` answered by the results of
its `observation`, per-step `metrics` and subagents embedded as `subagent_trajectories`
(v1.7). This module reads only the model, so every format's sessions export the same way.

What ATIF has no field for (a step's kind and title, a call's exit code, file changes, the
1-hour cache writes) goes into `extra` under "replay_site", so that replay-site reads its own
export back with the same steps, calls and figures; other consumers may ignore it.
"""
from __future__ import annotations

import math
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, BinaryIO

import orjson

from replay_site.model import Session, Step, ToolCall, Usage

# A site's trajectory file holds one session; its subagents' are files beside it, named here.
ChildFiles = dict[str, str]  # child session id -> its trajectory file's name, in the same folder

SCHEMA_VERSION = "ATIF-v1.7"  # the oldest version with embedded subagents (trajectory_id)
EXTRA = "replay_site"  # the key of what only replay-site reads back
# The kind a step of each source is read back as, unless its extra says otherwise.
KIND_OF_SOURCE = {"user": "user", "agent": "assistant", "system": "context"}
# The agent's name as Harbor's trajectories spell it, by reader; other formats by their own name.
AGENT_NAMES = {"claude": "claude-code", "gemini": "gemini-cli", "qwen": "qwen-code", "codex": "codex", "rlm": "rlm-code"}
# Tokens ATIF's three counters leave out, where Harbor's converters put them (metrics.extra).
CACHE_WRITE_KEY = "cache_creation_input_tokens"
REASONING_KEY = "reasoning_tokens"


def dumps(session: Session) -> bytes:
    """The ATIF JSON of `session` and its descendants (deterministic: same session, same bytes)."""
    return orjson.dumps(trajectory(session), option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS, default=str) + b"\n"


def trajectory(session: Session) -> dict[str, Any]:
    """`session` as one ATIF root object; its children embedded as subagent trajectories."""
    logged = [usd for step in session.steps if (usd := _logged_usd(step)) is not None]
    root = {**_head(session, session.models),
            "steps": [_step(number, step) for number, step in enumerate(session.steps, start=1)],
            **_tail(session, session.usage, len(session.steps), logged)}
    if session.children:
        root["subagent_trajectories"] = _children(session.children)
    return root


class TrajectoryFile:
    """One session's trajectory gathered a page of steps at a time (`add`), as a site's pass 2
    gives them, so that a long session's steps are never all in memory: each step kept only as
    its JSON line, in a temporary file; its subagents are not embedded but named by the files
    (`children`) the site writes beside it, as Harbor writes a trial's subagents."""

    def __init__(self, session: Session, children: ChildFiles):
        self._session, self._children = session, children
        self._steps = tempfile.TemporaryFile()  # noqa: SIM115 - open until file() hands it on
        self._count, self._usage, self._logged = 0, Usage(), []
        self._models = dict.fromkeys(session.declared_models)

    def add(self, steps: Iterable[Step]) -> None:
        for step in steps:
            self._count += 1
            self._steps.write(b",\n" if self._count > 1 else b"\n")
            self._steps.write(orjson.dumps(_step(self._count, step, self._children), option=orjson.OPT_NON_STR_KEYS, default=str))
            if step.model:
                self._models.setdefault(step.model)
            if usage := step.usage:
                self._usage = self._usage + usage
            if (usd := _logged_usd(step)) is not None:
                self._logged.append(usd)

    def file(self) -> BinaryIO:
        """The whole trajectory, a step a line, at the start of a temporary file (closed with it)."""
        head = orjson.dumps(_head(self._session, list(self._models)), option=orjson.OPT_NON_STR_KEYS, default=str)
        tail = orjson.dumps(_tail(self._session, self._usage, self._count, self._logged, self._children),
                            option=orjson.OPT_NON_STR_KEYS, default=str)
        whole = tempfile.TemporaryFile()  # noqa: SIM115 - the caller's, to copy from and close
        whole.write(head[:-1] + b',"steps":[')
        self._steps.seek(0)
        while chunk := self._steps.read(1 << 20):
            whole.write(chunk)
        self._steps.close()
        whole.write(b"\n]," + tail[1:] + b"\n")
        whole.seek(0)
        return whole


def _head(session: Session, models: list[str]) -> dict[str, Any]:
    """The keys before the steps."""
    agent: dict[str, Any] = {"name": AGENT_NAMES.get(session.format, session.format), "version": session.agent_version or "unknown"}
    if models:
        agent["model_name"] = models[0]
    return {"schema_version": SCHEMA_VERSION, "session_id": session.id, "trajectory_id": session.id, "agent": agent}


def _tail(session: Session, usage: Usage, steps: int, logged: list[float], children: ChildFiles | None = None) -> dict[str, Any]:
    """The keys after the steps (none of them empty). `children`: every subagent's file, in
    order, those no call names (a log may link a child to no call) included."""
    tail: dict[str, Any] = {
        "notes": f"Exported by replay-site from a {session.format} session ({session.source or session.id}).",
        "final_metrics": _final_metrics(usage, steps, logged),
    }
    extra = _session_extra(session)
    if children:
        extra["subagent_files"] = [{"trajectory_id": ident, "trajectory_path": name} for ident, name in children.items()]
    if extra:
        tail["extra"] = {EXTRA: extra}
    return tail


def _children(children: list[Session]) -> list[dict[str, Any]]:
    """The children's trajectories, each with a trajectory id of its own (ATIF requires them
    unique within a parent; a second child of the same id gets a numbered one)."""
    found, seen = [], set()
    for child in children:
        embedded = trajectory(child)
        if child.id in seen:
            embedded["trajectory_id"] = f"{child.id}#{len(found) + 1}"
        seen.add(embedded["trajectory_id"])
        found.append(embedded)
    return found


def _session_extra(session: Session) -> dict[str, Any]:
    values = {
        "format": session.format, "title": session.title, "source": session.source, "cwd": session.cwd,
        "git_branch": session.git_branch, "git_commit": session.git_commit, "project": session.project,
        "status": session.status, "outcome": session.outcome, "parent_id": session.parent_id,
        "started_at": _time(session.started_at), "ended_at": _time(session.ended_at),
        "declared_models": session.declared_models or None, "local_time": session.local_time or None,
        "relation": session.relation if session.relation != "subagent" else None,
        "facts": [[fact.label, fact.value] for fact in session.facts] or None,
        "pull_requests": [[pr.url, pr.number, pr.repository] for pr in session.pull_requests] or None,
    }
    return {key: value for key, value in values.items() if value not in (None, "")}


def _final_metrics(usage: Usage, steps: int, logged: list[float]) -> dict[str, Any]:
    metrics: dict[str, Any] = {
        "total_prompt_tokens": _prompt_tokens(usage),
        "total_completion_tokens": usage.output,
        "total_cached_tokens": usage.cache_read,
        "total_steps": steps,
    }
    if logged:
        metrics["total_cost_usd"] = sum(logged)
    return metrics


def _logged_usd(step: Step) -> float | None:
    """A step's cost as its log gave it (an estimate of ours is no cost_usd of the producer's)."""
    cost = step.cost
    return cost.usd if cost is not None and cost.source == "log" else None


def _prompt_tokens(usage: Usage) -> int:
    """ATIF's prompt_tokens: every input token, cached and cache-written ones included."""
    return usage.input + usage.cache_read + usage.cache_write


def _source(step: Step) -> str:
    """Who a step is from. Agent-only fields (calls, metrics, model, reasoning) make a step an
    agent step whatever its kind, since ATIF allows them nowhere else."""
    if step.kind == "assistant" or step.tool_calls or step.usage or step.cost or step.model or step.thinking:
        return "agent"
    return "user" if step.kind == "user" else "system"


def _step(number: int, step: Step, children: ChildFiles | None = None) -> dict[str, Any]:
    source = _source(step)
    out: dict[str, Any] = {"step_id": number, "source": source}
    if step.timestamp:
        out["timestamp"] = _time(step.timestamp)
    if source == "agent" and step.model:
        out["model_name"] = step.model
    out["message"] = step.text
    if step.thinking:
        out["reasoning_content"] = step.thinking
    if step.tool_calls:
        ids = [call.id or f"call-{number}-{index}" for index, call in enumerate(step.tool_calls, start=1)]
        out["tool_calls"] = [_call(call, ident) for call, ident in zip(step.tool_calls, ids)]
        results = [_result(call, ident, children) for call, ident in zip(step.tool_calls, ids) if _answered(call)]
        if results:
            out["observation"] = {"results": results}
    metrics = _metrics(step)
    if metrics:
        out["metrics"] = metrics
    extra = _step_extra(step)
    if extra:
        out["extra"] = {EXTRA: extra}
    return out


def _answered(call: ToolCall) -> bool:
    return not call.missing_result or call.output is not None or call.child_session_id is not None


def _call(call: ToolCall, ident: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "tool_call_id": ident,
        "function_name": call.name,
        "arguments": call.arguments if isinstance(call.arguments, dict) else {},
    }
    values = {
        "arguments": call.arguments if call.arguments is not None and not isinstance(call.arguments, dict) else None,
        "no_id": call.id is None or None,
        "no_arguments": call.arguments is None or None,
        "code": call.code, "language": call.language, "duration_s": call.duration_s, "url": call.url,
        "orphan": call.orphan or None, "missing_result": call.missing_result or None,
        "changes": [{"path": c.path, "kind": c.kind, "diff": c.diff, "new_path": c.new_path} for c in call.changes] or None,
        "images": [[image.media_type, image.data_base64] for image in call.images] or None,
        "todos": [[todo.text, todo.status] for todo in call.todos] or None,
    }
    extra = {key: value for key, value in values.items() if value is not None}
    if extra:
        out["extra"] = {EXTRA: extra}
    return out


def _result(call: ToolCall, ident: str, children: ChildFiles | None) -> dict[str, Any]:
    out: dict[str, Any] = {"source_call_id": ident}
    if call.output is not None:
        out["content"] = call.output
    if call.child_session_id is not None:
        ref = {"trajectory_id": call.child_session_id, "session_id": call.child_session_id}
        if children and call.child_session_id in children:
            ref["trajectory_path"] = children[call.child_session_id]
        out["subagent_trajectory_ref"] = [ref]
    extra: dict[str, Any] = {}
    if call.is_error:
        extra["is_error"] = True
    if call.exit_code is not None:
        extra["exit_code"] = call.exit_code
    if extra:
        out["extra"] = extra
    return out


def _metrics(step: Step) -> dict[str, Any]:
    usage = step.usage
    out: dict[str, Any] = {}
    if usage:
        out.update(prompt_tokens=_prompt_tokens(usage), completion_tokens=usage.output, cached_tokens=usage.cache_read)
        extra: dict[str, Any] = {}
        if usage.cache_write:
            extra[CACHE_WRITE_KEY] = usage.cache_write
        if usage.reasoning:
            extra[REASONING_KEY] = usage.reasoning
        if usage.cache_write_1h:
            extra[EXTRA] = {"cache_write_1h": usage.cache_write_1h}
        if extra:
            out["extra"] = extra
    if (usd := _logged_usd(step)) is not None:
        out["cost_usd"] = usd
    return out


def _step_extra(step: Step) -> dict[str, Any]:
    values = {
        "kind": step.kind if step.kind != KIND_OF_SOURCE[_source(step)] else None,
        "title": step.title, "error": step.error, "collapsed": step.collapsed or None,
        "duration_s": step.duration_s, "checkpoint": step.checkpoint,
        "reward": _measure(step.reward), "cumulative_reward": _measure(step.cumulative_reward),
        "memory_notes": step.memory_notes or None,
        "variables": [[v.name, v.value, v.type, v.changed] for v in step.variables] or None,
        "details": [[detail.label, detail.text, detail.language] for detail in step.details] or None,
        "images": [[image.media_type, image.data_base64] for image in step.images] or None,
        "child_session_ids": step.child_session_ids or None,
        "tier": step.tier or None,
        "usage_partial": (step.usage is not None and step.usage.partial) or None,  # how the log says the request was served: priced at that rate again
    }
    return {key: value for key, value in values.items() if value is not None}


def _measure(value: float | None) -> float | str | None:
    """A reward as JSON can hold it: NaN and infinities as their names (JSON has no such numbers)."""
    if value is None or math.isfinite(value):
        return value
    return str(value)


def _time(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC with a Z, as ATIF's examples write it; a naive time (local, gptme) as it is."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        return moment.isoformat()
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
