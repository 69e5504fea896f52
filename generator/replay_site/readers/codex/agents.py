"""Codex records about agents and voice rather than one model's turns (2026, MultiAgent V2 and
realtime sessions): messages between agents, the history a forked thread was given, voice
transcripts, token-budget notices. Each becomes a Step, or nothing where the record is
bookkeeping that Codex itself keeps out of the conversation (`security_risk_score`: "must not
enter user-visible thread item projections").
"""
from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from replay_site.model import Step
from replay_site.readers.codex.shapes import Record
from replay_site.readers.fields import first_request, string
from replay_site.readers.jsonl import kind_of

# Records known and left out of the page: the trigger flag of an inter-agent message, risk
# scores of actions, guardian context, a realtime item's promotion into the thread.
QUIET_KINDS = frozenset({"inter_agent_communication_metadata", "security_risk_score", "retained_context"})
_PAYLOAD = re.compile(r"^Payload: ?(.*)", re.M | re.S)


def agent_message(record: Record) -> Step:
    """`inter_agent_communication` (and the `agent_message` response item): one agent's message to another (a task, a reply), shown
    as a message from the sender, not as the user's prompt."""
    payload = record.payload
    author, recipient = string(payload.get("author")) or "an agent", string(payload.get("recipient"))
    content = payload.get("content")
    # a string (inter_agent_communication), or content items (the agent_message response item)
    text = string(content) or "\n\n".join(part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)) \
        if isinstance(content, (str, list)) else ""
    title = f"Message from {author}" + (f" to {recipient}" if recipient else "")
    return Step("context", timestamp=record.timestamp, title=title, text=text)


def task_of(steps: list[Step]) -> str:
    """A spawned thread's title when no prompt of its own was written: the task its parent sent."""
    messages = [step.text for step in steps if step.kind == "context" and (step.title or "").startswith("Message from")]
    if not messages:
        return ""
    found = _PAYLOAD.search(messages[0])
    return first_request([found.group(1) if found else messages[0]]) or ""


def realtime(record: Record) -> Step | None:
    """A voice session's transcript line, or its start or end; other realtime items are the
    thread's own items promoted, shown where they are."""
    payload = record.payload
    kind = kind_of(payload)
    data = payload.get("data") if isinstance(payload.get("data"), dict) else payload  # some writers put the fields flat
    if kind == "transcript_segment":
        role = string(data.get("role")) or "speaker"
        return Step("context", timestamp=record.timestamp, title=f"Voice transcript ({role})", text=string(data.get("text")) or "")
    if kind == "realtime_session_started":
        return Step("event", timestamp=record.timestamp, title="Voice session started", collapsed=True)
    if kind == "realtime_session_closed":
        outcome = string(data.get("outcome"))
        title = "Voice session closed" + (f" ({outcome})" if outcome else "")
        return Step("event", timestamp=record.timestamp, title=title, collapsed=True)
    return None


def budget_notice(payload: dict[str, Any], record: Record) -> Step:
    """A context-window budget reminder (`token_budget_reminder`, `token_budget_compaction_reminder`)."""
    left = payload.get("remaining_tokens")
    text = f"{left:,} tokens left in this context window" if isinstance(left, int) and not isinstance(left, bool) else ""
    body = string(payload.get("content")) or string(payload.get("message")) or text
    return Step("context", timestamp=record.timestamp, title="Context budget", text=body, collapsed=True)


def collab_step(payload: dict[str, Any], stamp: datetime | None) -> Step:
    """A `collab_tool_call` (spawn_agent, send_input, wait, …) that names no call of this
    thread: its own step, linked to the threads it reached."""
    tool = string(payload.get("tool")) or "agent tool"
    receivers = payload.get("receiver_thread_ids")
    children = [str(each) for each in receivers if isinstance(each, str) and each] if isinstance(receivers, list) else []
    status = string(payload.get("status"))
    title = f"Agent call {tool}" + (f" ({status})" if status else "")
    return Step("event", timestamp=stamp, title=title, text=string(payload.get("prompt")) or "", child_session_ids=children,
                error="agent call failed" if status == "failed" else None)


def copied_step(copied: list[Record], origin: str) -> Step:
    """The history a forked thread was given, as one folded note: it is the parent's, shown and counted there."""
    prompts = [text for record in copied if (text := _prompt(record))]
    lines = [f"{len(copied)} lines of thread {origin or '(unknown)'} were copied into this thread when it was made. "
             "They are that thread's steps and figures, so they are not shown or counted here."]
    lines.extend(f"- {first_request([prompt]) or prompt}" for prompt in prompts)
    stamp = next((record.timestamp for record in copied if record.timestamp), None)
    return Step("event", timestamp=stamp, title=f"Copied from thread {origin}" if origin else "Copied history",
                text="\n".join(lines), collapsed=True)


def _prompt(record: Record) -> str | None:
    payload = record.payload
    if record.kind == "event_msg" and kind_of(payload) == "user_message":
        return string(payload.get("message"))
    if record.kind == "response_item" and kind_of(payload) == "message" and payload.get("role") == "user":
        parts = payload.get("content") if isinstance(payload.get("content"), list) else []
        texts = [part["text"] for part in parts if isinstance(part, dict) and isinstance(part.get("text"), str)]
        return "\n\n".join(text for text in texts if not text.lstrip().startswith("<")) or None
    return None

