"""Codex events that say something about the thread rather than a call or a message (0.14x
and the builds before, whose rollouts persisted more of them; openai/codex rollout policy):
each is a step of its own, or known and left out of the page (telemetry, streaming deltas,
approval prompts whose outcome the call's own records hold)."""
from __future__ import annotations

from typing import Any

from replay_site.model import Detail, Step
from replay_site.readers.codex.shapes import Record
from replay_site.readers.fields import raw_json, string

QUIET_NOTICES = frozenset({
    "realtime_conversation_realtime", "realtime_conversation_sdp", "realtime_conversation_list_voices_response",
    "safety_buffering", "turn_moderation_metadata", "model_verification", "mcp_startup_update", "mcp_startup_complete",
    "terminal_interaction", "exec_approval_request", "apply_patch_approval_request", "request_permissions",
    "elicitation_request", "patch_apply_updated", "raw_response_completed", "hook_started", "hook_completed",
    "agent_message_content_delta", "plan_delta", "reasoning_content_delta", "reasoning_raw_content_delta",
    "collab_agent_interaction_begin", "collab_close_begin", "collab_resume_begin", "thread_queue_changed",
    "auth_recovery_started", "auth_recovery_completed",
})

# kind -> (title, collapsed): what a notice is called on the page
_TITLES = {
    "warning": ("Warning", False),
    "guardian_warning": ("Guardian warning", False),
    "guardian_assessment": ("Guardian assessment", True),
    "deprecation_notice": ("Deprecation notice", True),
    "stream_error": ("Stream error", True),
    "thread_goal_updated": ("Goal updated", False),
    "thread_rolled_back": ("Thread rolled back", False),
    "model_reroute": ("Model rerouted", False),
    "request_user_input": ("Question to the user", False),
    "environment_connected": ("Environment connected", True),
    "environment_disconnected": ("Environment disconnected", True),
    "realtime_conversation_started": ("Voice conversation started", True),
    "realtime_conversation_closed": ("Voice conversation closed", True),
    "collab_agent_interaction_end": ("Message to an agent", True),
}
NOTICE_KINDS = frozenset(_TITLES)
# Where a notice keeps its words, in the order looked at.
_TEXT_KEYS = ("message", "details", "goal", "objective", "reason", "prompt", "text", "summary")


def notice(kind: str, payload: dict[str, Any], record: Record) -> Step:
    """The step of a notice event (kind in NOTICE_KINDS)."""
    title, collapsed = _TITLES[kind]
    if kind == "thread_rolled_back" and isinstance(payload.get("num_turns"), int):
        title = f"Thread rolled back {payload['num_turns']} turn(s)"
    elif kind == "model_reroute":
        before, after = string(payload.get("from_model")), string(payload.get("to_model"))
        if before or after:
            title = f"Model rerouted from {before or '?'} to {after or '?'}"
    elif kind == "collab_agent_interaction_end":
        nickname = string(payload.get("receiver_agent_nickname"))
        title = f"Message to agent {nickname}" if nickname else title
    text = "\n\n".join(_texts(payload))
    step = Step("event" if kind not in ("thread_goal_updated", "collab_agent_interaction_end") else "context",
                timestamp=record.timestamp, title=title, text=text, collapsed=collapsed)
    if not text or kind == "guardian_assessment":
        step.details.append(Detail("raw line", raw_json(payload, indent=True), "json"))
    return step


def turn_item(payload: dict[str, Any], record: Record) -> Step | None:
    """An `item_completed` whose item no other record holds (0.14x persists these alone): the
    agent's plan, or a pause it took; None for the items calls are made of (calls.py)."""
    item = payload.get("item") if isinstance(payload.get("item"), dict) else {}
    if item.get("type") == "Plan":
        return Step("context", timestamp=record.timestamp, title="Plan", text=string(item.get("text")) or "")
    if item.get("type") == "Sleep":
        return Step("event", timestamp=record.timestamp, title="Paused", collapsed=True,
                    details=[Detail("raw line", raw_json(item, indent=True), "json")])
    return None


def rerouted_to(payload: dict[str, Any]) -> str | None:
    """The model a `model_reroute` moved the thread to."""
    return string(payload.get("to_model")) or None


def _texts(payload: dict[str, Any]) -> list[str]:
    found = []
    for key in _TEXT_KEYS:
        value = payload.get(key)
        if isinstance(value, dict):
            value = next((value[k] for k in _TEXT_KEYS if isinstance(value.get(k), str)), None)
        if isinstance(value, str) and value.strip():
            found.append(value)
    status = payload.get("status")
    if isinstance(status, dict) and isinstance(status.get("completed"), str):
        found.append(status["completed"])  # an agent's reply (collab_agent_interaction_end)
    return found
