"""Copilot CLI events into steps (the event schema of github/copilot-sdk,
`session-events.schema.json`; only the events not marked ephemeral reach the file).

Every line is `{"type","id","timestamp","parentId","data"}` (a subagent's events add
`agentId`, or name the task call in `data.parentToolCallId`). A model response is an
`assistant.message` (text, `reasoningText`, `toolRequests`, its own `outputTokens`); a tool's
run is `tool.execution_start` then `tool.execution_complete`, paired by `toolCallId`. The
file holds no other per-response tokens: the per-call usage events are ephemeral. Each run
of the CLI on the session ends with `session.shutdown`, whose `modelMetrics` hold that run's
totals per model (reset when the session is resumed, so each run's are its own; input counts
cache reads and writes). Each shutdown becomes one step per model holding what the messages
did not: input, cache reads and writes, and the output tokens beyond the messages' own.
"""
from __future__ import annotations

import re
from typing import Any

from replay_site.diffs import change_from_texts
from replay_site.model import Detail, FileChange, Session, Step, ToolCall, Usage
from replay_site.readers.fields import answered_call, count, mapping, mark_unanswered, raw_json, string
from replay_site.readers.fields import text as as_text
from replay_site.readers.jsonl import LineKinds, kind_of
from replay_site.readers.timestamps import parse_time

# Bookkeeping the CLI persists: turn boundaries, state snapshots, permission prompts, hooks,
# loaded tools and extensions. Counted, never a step.
NOT_SHOWN = frozenset({
    "session.start", "assistant.turn_start", "assistant.turn_end", "session.usage_checkpoint",
    "session.context_changed", "session.mode_changed", "session.plan_changed", "session.permissions_changed",
    "session.session_limits_changed", "session.remote_steerable_changed", "session.workspace_file_changed",
    "session.schedule_created", "session.schedule_cancelled", "session.schedule_rearmed",
    "session.autopilot_objective_changed", "session.auto_mode_resolved", "session.binary_asset",
    "session.compaction_start", "session.context_cleared", "session.extensions.attachments_pushed",
    "permission.requested", "permission.completed", "hook.start", "hook.end", "subagent.selected",
    "subagent.deselected", "external_tool.requested", "external_tool.completed", "mcp_app.tool_call_complete",
    "session.canvas.opened", "session.canvas.closed", "session.canvas.recorded", "session.canvas.removed",
    "session.canvas.registry_changed", "session.canvas.unavailable", "tool.execution_start",
})
LINE_KINDS = LineKinds(not_shown=NOT_SHOWN)
EXIT_CODE = re.compile(r"<exited with exit code (-?\d+)>")
SHELLS = frozenset({"bash", "powershell", "shell"})


def file_changes(name: str, arguments: dict[str, Any]) -> list[FileChange]:
    """An `edit` (old_str → new_str) or `create` (file_text), and the older
    `str_replace_editor` that did both by `command`."""
    path = string(arguments.get("path"))
    command = arguments.get("command") if name == "str_replace_editor" else name
    if path is None:
        return []
    if command in ("edit", "str_replace") and isinstance(arguments.get("old_str"), str) and isinstance(arguments.get("new_str"), str):
        return [change_from_texts(path, arguments["old_str"], arguments["new_str"])]
    if command == "create" and isinstance(arguments.get("file_text"), str):
        return [change_from_texts(path, None, arguments["file_text"])]
    return []


class Builder:
    """One session's events into steps: the main agent's in `session`, each subagent's in a
    child keyed by the task call that started it (or its `agentId`)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.children: dict[str, Session] = {}
        self.agents: dict[str, str] = {}  # a subagent's agentId -> the task call that started it
        self.calls: dict[str, ToolCall] = {}
        self.answered: set[int] = set()
        self.output_since_shutdown: dict[str, int] = {}
        self.reasoning: dict[str, list[str]] = {}
        self.model: str | None = None

    def owner(self, event: dict[str, Any]) -> Session:
        data = mapping(event.get("data"))
        agent = string(event.get("agentId"))
        if kind_of(event) in ("subagent.started", "subagent.completed", "subagent.failed"):
            if agent and string(data.get("toolCallId")):  # the agent's events name it, not the task call
                self.agents[agent] = data["toolCallId"]
            return self.session
        key = string(data.get("parentToolCallId")) or (self.agents.get(agent, agent) if agent else None)
        if key is None:
            return self.session
        child = self.children.get(key)
        if child is None:
            child = self.children[key] = Session(id=f"{self.session.id}/{key}", format=self.session.format,
                                                 source=self.session.source, parent_id=self.session.id, cwd=self.session.cwd)
            if key in self.calls:
                self.calls[key].child_session_id = child.id
        return child

    def add(self, line: int, event: dict[str, Any]) -> None:
        kind = kind_of(event) or "(no type)"
        data = mapping(event.get("data"))
        when = parse_time(event.get("timestamp"))
        if kind == "session.start":
            self._start(data)
        if kind == "tool.execution_start":
            self._tool_start(data)
        if kind in NOT_SHOWN:
            return
        owner = self.owner(event)
        step = self._step(line, kind, data, event, owner)
        if step is not None:
            step.timestamp = step.timestamp or when
            owner.steps.append(step)

    def _start(self, data: dict[str, Any]) -> None:
        context = mapping(data.get("context"))
        self.session.id = string(data.get("sessionId")) or self.session.id
        self.session.agent_version = string(data.get("copilotVersion"))
        self.session.started_at = parse_time(data.get("startTime"))
        self.session.cwd = string(context.get("cwd"))
        self.session.git_branch = string(context.get("branch"))
        self.model = string(data.get("selectedModel")) or self.model

    def _tool_start(self, data: dict[str, Any]) -> None:
        """A run of a call the model asked for (it has the arguments when the message did not)."""
        ident = string(data.get("toolCallId"))
        call = self.calls.get(ident) if ident else None
        if call is not None and call.arguments is None and isinstance(data.get("arguments"), (dict, str)):
            call.arguments = data["arguments"]

    def _step(self, line: int, kind: str, data: dict[str, Any], event: dict[str, Any], owner: Session) -> Step | None:
        if kind == "user.message":
            step = Step("user", text=as_text(data.get("content")))
            if isinstance(data.get("transformedContent"), str) and data["transformedContent"] != step.text:
                step.details.append(Detail("As sent to the model", data["transformedContent"]))
            for attachment in data.get("attachments") if isinstance(data.get("attachments"), list) else []:
                step.details.append(Detail("Attachment", raw_json(attachment, indent=True), "json"))
            return step
        if kind == "assistant.reasoning":
            self.reasoning.setdefault(owner.id, []).append(as_text(data.get("content")))
            return None
        if kind == "assistant.message":
            return self._assistant(data, owner)
        if kind == "tool.execution_complete":
            return self._result(data)
        if kind == "tool.user_requested":
            call = ToolCall(as_text(data.get("toolName")) or "tool", id=string(data.get("toolCallId")),
                            arguments=data.get("arguments") if isinstance(data.get("arguments"), (dict, str)) else None)
            if call.id:
                self.calls[call.id] = call
            return Step("user", title="Tool run by the user", tool_calls=[call])
        if kind == "session.shutdown":
            return self._shutdown(data)
        return self._event(line, kind, data, event, owner)

    def _assistant(self, data: dict[str, Any], owner: Session) -> Step:
        model = string(data.get("model")) or self.model
        output = count(data.get("outputTokens"))
        step = Step("assistant", model=model, text=as_text(data.get("content")),
                    thinking="\n\n".join(filter(None, [*self.reasoning.pop(owner.id, []), as_text(data.get("reasoningText"))])),
                    usage=Usage(output=output) if output else None)
        if model and output:
            self.output_since_shutdown[model] = self.output_since_shutdown.get(model, 0) + output
        for request in data.get("toolRequests") if isinstance(data.get("toolRequests"), list) else []:
            if not isinstance(request, dict):
                continue
            arguments = request.get("arguments")
            call = ToolCall(as_text(request.get("name")) or "tool", id=string(request.get("toolCallId")),
                            arguments=arguments if isinstance(arguments, (dict, str)) else None)
            if call.name in SHELLS and isinstance(arguments, dict) and isinstance(arguments.get("command"), str):
                call.code, call.language = arguments["command"], "bash" if call.name != "powershell" else "powershell"
            step.tool_calls.append(call)
            if call.id:
                self.calls[call.id] = call
                child = self.children.get(call.id)
                if child is not None:
                    call.child_session_id = child.id
        return step

    def _result(self, data: dict[str, Any]) -> Step | None:
        call, orphan = answered_call(self.calls, self.answered, string(data.get("toolCallId")))
        step = Step("context", title="Tool result without its call", tool_calls=[call]) if orphan else None
        result, error = mapping(data.get("result")), mapping(data.get("error"))
        call.is_error = data.get("success") is not True
        call.output = as_text(error.get("message")) if call.is_error and error else as_text(result.get("content"))
        if isinstance(result.get("detailedContent"), str) and result["detailedContent"] != call.output:
            call.output = result["detailedContent"] if not call.output else call.output
        if call.name in SHELLS and (exited := EXIT_CODE.search(call.output or "")):
            call.exit_code = int(exited.group(1))
            call.is_error = call.is_error or call.exit_code != 0
        if not call.is_error and isinstance(call.arguments, dict):
            call.changes = file_changes(call.name, call.arguments)
        return step

    def _shutdown(self, data: dict[str, Any]) -> Step | None:
        """The run's totals per model, less the output its messages already hold."""
        metrics = mapping(data.get("modelMetrics"))
        step = Step("event", title=f"End of a run ({as_text(data.get('shutdownType')) or 'shutdown'})", collapsed=True)
        for model in sorted(metrics):
            usage = mapping(mapping(metrics[model]).get("usage"))
            cache_read, cache_write = count(usage.get("cacheReadTokens")), count(usage.get("cacheWriteTokens"))
            output = max(0, count(usage.get("outputTokens")) - self.output_since_shutdown.pop(model, 0))
            figures = Usage(input=max(0, count(usage.get("inputTokens")) - cache_read - cache_write), output=output,
                            cache_read=cache_read, cache_write_5m=cache_write, reasoning=count(usage.get("reasoningTokens")))
            self.session.steps.append(Step("event", model=model, usage=figures, collapsed=True,
                                           title=f"Tokens of this run not in its messages: {model}"))
        self.output_since_shutdown.clear()
        if data.get("shutdownType") == "error":
            step.error = as_text(data.get("errorReason")) or "the run ended with an error"
        return step

    def _event(self, line: int, kind: str, data: dict[str, Any], event: dict[str, Any], owner: Session) -> Step:
        if kind == "session.model_change":
            self.model = string(data.get("newModel")) or self.model
            return Step("event", title=f"Model: {as_text(data.get('newModel'))}", collapsed=True)
        if kind == "session.resume":
            return Step("event", title="Session resumed", collapsed=True)
        if kind in ("session.info", "session.warning", "system.notification"):
            return Step("event", title=f"{kind.partition('.')[2].capitalize()}: {as_text(data.get('infoType') or data.get('warningType'))}",
                        text=as_text(data.get("message")), collapsed=True)
        if kind == "session.error":
            return Step("event", title=f"Error: {as_text(data.get('errorType'))}", error=as_text(data.get("message")) or "error")
        if kind == "abort":
            self.session.outcome = "interrupted"
            return Step("event", title=f"Stopped ({as_text(data.get('reason'))})", collapsed=True)
        if kind == "session.compaction_complete":
            return Step("context", title="Compacted the context", text=as_text(data.get("summaryContent")), collapsed=True,
                        error=None if data.get("success") is not False else as_text(data.get("error")) or "compaction failed")
        if kind in ("session.truncation", "session.handoff", "session.title_changed"):
            return Step("event", title=kind.partition(".")[2].replace("_", " ").capitalize(), collapsed=True,
                        details=[Detail("Event", raw_json(data, indent=True), "json")])
        if kind == "session.task_complete":
            if data.get("success") is not False:
                self.session.outcome = "completed"
            return Step("event", title="Task complete", text=as_text(data.get("summary")), collapsed=True)
        if kind in ("subagent.started", "subagent.completed", "subagent.failed"):
            title = f"Subagent {kind.partition('.')[2]}: {as_text(data.get('agentDisplayName') or data.get('agentName'))}"
            return Step("event", title=title, collapsed=True, error=as_text(data.get("error")) if kind == "subagent.failed" else None)
        if kind == "system.message":
            return Step("context", title=f"System message ({as_text(data.get('role'))})", text=as_text(data.get("content")), collapsed=True)
        if kind == "skill.invoked":
            return Step("event", title=f"Skill: {as_text(data.get('name') or data.get('skillName'))}", collapsed=True,
                        details=[Detail("Event", raw_json(data, indent=True), "json")])
        self.session.warn("unknown_event", f"unknown Copilot CLI event kind {kind!r}", line)
        self.session.not_understood(kind)
        return Step("event", title=f"Unknown event: {kind}", details=[Detail("Raw event", raw_json(event, indent=True), "json")])

    def finish(self) -> list[Session]:
        mark_unanswered(self.calls.values(), self.answered)
        return list(self.children.values())
