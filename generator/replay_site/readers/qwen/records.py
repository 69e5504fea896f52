"""Qwen Code's chat records (ChatRecordingService's ChatRecord) -> steps.

Each line is one record: `uuid`, `parentUuid` (the records form a tree; the conversation is
the path from the last record back to the root, the other branches were rewound),
`sessionId`, `timestamp`, `type` user | assistant | tool_result | system (with a `subtype`),
`cwd`, `version`, `gitBranch`, and `message`, the Gemini API Content sent or received
({role, parts}). An assistant record is one model response, with its `usageMetadata` and
`model`; a tool_result record carries the functionResponse parts of one call and
`toolCallResult` {callId, status, resultDisplay (a FileDiff for edits, a task_execution for a
subagent)}. Records of a subagent carry `agentId` and `isSidechain`.
"""
from __future__ import annotations

from typing import Any

from replay_site.model import Detail, Session, Step, ToolCall
from replay_site.readers.fields import abandon, mapping, raw_json, string, text
from replay_site.readers.gemini.conversation import SHELL_TOOLS
from replay_site.readers.gemini.parts import content, exit_code, file_changes, response_output, usage_of
from replay_site.readers.timestamps import utc_time

# System subtypes that are the recorder's own bookkeeping (telemetry, snapshots, settings
# restored on resume): counted, not shown. ui_telemetry repeats the API's token counts, so
# showing or adding it would count a response twice.
BOOKKEEPING = frozenset({
    "ui_telemetry", "attribution_snapshot", "file_history_snapshot", "session_model", "session_approval_mode",
    "session_source", "session_execution_engine", "session_sources_snapshot", "session_artifact_event",
    "session_artifact_snapshot", "branch_checkpoint", "goal_state", "goal_runtime", "goal_turn_end", "turn_result",
    "managed_session_header_v1", "managed_session_event_v1", "managed_session_commit_v1", "user_text_elements",
    "agent_session_ready", "agent_retry", "session_notes", "custom_title", "parent_session", "omni_recall",
})
# Subtypes shown as a folded note of what happened (a compression, a command the user ran, …).
NOTES = {
    "chat_compression": "chat compressed", "slash_command": "slash command", "at_command": "@ command",
    "notification": "notification", "background_task_completed": "background task completed", "rewind": "rewind",
    "agent_bootstrap": "subagent context", "cron": "scheduled prompt", "realtime_message": "realtime message",
}
USER_SUBTYPES = ("mid_turn_user_message", "agent_launch_prompt")
_FAILED = ("error", "cancelled")


def kind_of(record: dict[str, Any]) -> str:
    """A record's kind for the account: its type, with the subtype when it has one."""
    kind, subtype = text(record.get("type"))[:30] or "(no type)", string(record.get("subtype"))
    return f"{kind}:{subtype[:30]}" if subtype else kind


def active_chain(records: list[dict[str, Any]]) -> set[str]:
    """The uuids on the path from the last conversation record back to the root: what the
    session ended as. Records off it were taken back (a rewind or a branch)."""
    by_uuid = {record["uuid"]: record for record in records if isinstance(record.get("uuid"), str)}
    last = next((record for record in reversed(records) if record.get("type") != "system" and isinstance(record.get("uuid"), str)), None)
    chain: set[str] = set()
    while last is not None and last["uuid"] not in chain:
        chain.add(last["uuid"])
        last = by_uuid.get(last.get("parentUuid")) if isinstance(last.get("parentUuid"), str) else None
    return chain


class StepBuilder:
    """The steps of one session (the main conversation or one subagent's), in record order."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.steps: list[Step] = []
        self.calls: dict[str, ToolCall] = {}  # call id -> the call waiting for its result

    def add(self, line: int, record: dict[str, Any], on_chain: bool) -> None:
        kind, subtype = record.get("type"), string(record.get("subtype"))
        when = utc_time(record.get("timestamp"))
        if kind == "system" or subtype:
            step = self._system(line, record, subtype, when)
        elif kind == "user":
            parts = content(record.get("message"))
            step = Step(kind="user", timestamp=when, text=parts.text, images=parts.images)
        elif kind == "assistant":
            step = self._assistant(record, when)
        elif kind == "tool_result":
            self._result(record)
            return
        else:
            self.session.warn("unknown_event", f"unknown record type {text(kind)[:40]!r}, shown as a raw record", line)
            self.session.not_understood(kind_of(record))
            step = _raw(record, when, f"record of type {text(kind)[:40]!r}")
        if step is None:
            return
        if not on_chain and record.get("type") != "system":
            abandon(step, "rewound")
        self.steps.append(step)

    def _system(self, line: int, record: dict[str, Any], subtype: str | None, when: Any) -> Step | None:
        if subtype in BOOKKEEPING:
            return None
        if subtype in USER_SUBTYPES:
            parts = content(record.get("message"))
            return Step(kind="user", timestamp=when, text=parts.text, title=subtype.replace("_", " "))
        if subtype in NOTES:
            payload = mapping(record.get("systemPayload"))
            shown = text(payload.get("displayText")) or text(payload.get("rawCommand")) or content(record.get("message")).text
            step = Step(kind="context" if subtype in ("chat_compression", "agent_bootstrap") else "event", timestamp=when,
                        title=NOTES[subtype], text=shown, collapsed=subtype in ("chat_compression", "agent_bootstrap"))
            if payload:
                step.details.append(Detail(NOTES[subtype], raw_json(payload, indent=True), "json"))
            return step
        self.session.warn("unknown_event", f"unknown record subtype {text(subtype)[:40]!r}, shown as a raw record", line)
        self.session.not_understood(kind_of(record))
        return _raw(record, when, f"{text(record.get('type'))} record {text(subtype)[:40]!r}")

    def _assistant(self, record: dict[str, Any], when: Any) -> Step:
        parts = content(record.get("message"))
        step = Step(kind="assistant", timestamp=when, model=string(record.get("model")), text=parts.text,
                    thinking=parts.thinking, images=parts.images, usage=usage_of(record.get("usageMetadata")))
        for index, raw in enumerate(parts.calls, start=1):
            args = raw.get("args")
            call = ToolCall(name=string(raw.get("name")) or "?", id=string(raw.get("id")), arguments=args if isinstance(args, dict) else None)
            if call.name in SHELL_TOOLS and isinstance(args, dict) and string(args.get("command")):
                call.code, call.language = args["command"], "bash"
            step.tool_calls.append(call)
            self.calls[call.id or f"#{len(self.steps)}:{index}"] = call
        return step

    def _result(self, record: dict[str, Any]) -> None:
        """A call's result, given to the call it answers (by call id); one with no call is
        shown as an orphan result of its own."""
        info = mapping(record.get("toolCallResult"))
        parts = content(record.get("message"))
        responses = parts.responses or [{}]
        for response in responses:
            ident = string(response.get("id")) or string(info.get("callId"))
            call = self.calls.pop(ident, None) if ident else None
            if call is None:
                call = ToolCall(name=string(response.get("name")) or "?", id=ident, orphan=True)
                self.steps.append(Step(kind="event", timestamp=utc_time(record.get("timestamp")), title="tool result without its call", tool_calls=[call]))
            output, failed = response_output(response) if response else (None, False)
            display = info.get("resultDisplay")
            if isinstance(display, str) and not output:
                output = display
            task = mapping(display) if mapping(display).get("type") == "task_execution" else {}
            if task and not output:
                output = text(task.get("result")) or text(task.get("terminateReason")) or None
            call.output = output if output is not None else parts.text or None
            status = string(info.get("status")) or ""
            call.is_error = failed or status in _FAILED or bool(mapping(info.get("error")).get("message")) or (task.get("status") == "failed")
            call.changes = file_changes(display, call.arguments if isinstance(call.arguments, dict) else {})
            if call.language == "bash":
                call.exit_code = exit_code(output)

    def unanswered(self) -> list[ToolCall]:
        return list(self.calls.values())


def _raw(record: dict[str, Any], when: Any, title: str) -> Step:
    return Step(kind="event", timestamp=when, title=title, details=[Detail("raw record", raw_json(record, indent=True), "json")])
