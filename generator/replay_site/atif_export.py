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
from datetime import UTC, datetime
from typing import Any

import orjson

from replay_site.model import Session, Step, ToolCall, Usage

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
    models = session.models
    agent: dict[str, Any] = {"name": AGENT_NAMES.get(session.format, session.format), "version": session.agent_version or "unknown"}
    if models:
        agent["model_name"] = models[0]
    root: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "session_id": session.id,
        "trajectory_id": session.id,
        "agent": agent,
        "steps": [_step(number, step) for number, step in enumerate(session.steps, start=1)],
        "notes": f"Exported by replay-site from a {session.format} session ({session.source or session.id}).",
        "final_metrics": _final_metrics(session),
    }
    extra = _session_extra(session)
    if extra:
        root["extra"] = {EXTRA: extra}
    if session.children:
        root["subagent_trajectories"] = _children(session.children)
    return root


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


def _final_metrics(session: Session) -> dict[str, Any]:
    usage = session.usage
    metrics: dict[str, Any] = {
        "total_prompt_tokens": _prompt_tokens(usage),
        "total_completion_tokens": usage.output,
        "total_cached_tokens": usage.cache_read,
        "total_steps": len(session.steps),
    }
    logged = [step.cost.usd for step in session.steps if step.cost and step.cost.source == "log" and step.cost.usd is not None]
    if logged:
        metrics["total_cost_usd"] = sum(logged)
    return metrics


def _prompt_tokens(usage: Usage) -> int:
    """ATIF's prompt_tokens: every input token, cached and cache-written ones included."""
    return usage.input + usage.cache_read + usage.cache_write


def _source(step: Step) -> str:
    """Who a step is from. Agent-only fields (calls, metrics, model, reasoning) make a step an
    agent step whatever its kind, since ATIF allows them nowhere else."""
    if step.kind == "assistant" or step.tool_calls or step.usage or step.cost or step.model or step.thinking:
        return "agent"
    return "user" if step.kind == "user" else "system"


def _step(number: int, step: Step) -> dict[str, Any]:
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
        results = [_result(call, ident) for call, ident in zip(step.tool_calls, ids) if _answered(call)]
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


def _result(call: ToolCall, ident: str) -> dict[str, Any]:
    out: dict[str, Any] = {"source_call_id": ident}
    if call.output is not None:
        out["content"] = call.output
    if call.child_session_id is not None:
        out["subagent_trajectory_ref"] = [{"trajectory_id": call.child_session_id, "session_id": call.child_session_id}]
    extra: dict[str, Any] = {}
    if call.is_error:
        extra["is_error"] = True
    if call.exit_code is not None:
        extra["exit_code"] = call.exit_code
    if extra:
        out["extra"] = extra
    return out


def _metrics(step: Step) -> dict[str, Any]:
    usage, cost = step.usage, step.cost
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
    if cost is not None and cost.source == "log" and cost.usd is not None:
        out["cost_usd"] = cost.usd
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
