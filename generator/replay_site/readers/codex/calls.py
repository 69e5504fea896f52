"""Codex tool calls: each call item -> a ToolCall, resolved once against every piece of its result.

A call's result is spread over up to three places that arrive in any order: its output
item, an end event (exec_command_end, patch_apply_end or item_completed), and, for a
process left running, the exit code a later write_stdin poll reports. The walk only
collects them here; settle() decides once the whole file is in.
"""
from __future__ import annotations

import json
from typing import Any

from replay_site.model import Image, Step, TodoItem, ToolCall
from replay_site.readers.codex.outputs import (
    OutputInfo,
    classify,
    command_text,
    end_duration,
    end_exit_code,
)
from replay_site.readers.codex.patch import (
    changes_from_event,
    parse_apply_patch,
    patch_in,
)

CALL_ITEMS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call", "image_generation_call")
# Calls that only events record (0.14x): a dynamic tool the client registered, answered by
# `dynamic_tool_call_response`; an image made by `image_generation_end` with no item kept.
EVENT_CALLS = {"dynamic_tool_call_request": "dynamic_tool_call", "dynamic_tool_call_response": "dynamic_tool_call",
               "image_generation_end": "image_generation_call"}
NO_SEARCH_RESULTS = "No results recorded: Codex hands search results to the model without logging them."


def _tool_call(payload: dict[str, Any]) -> tuple[ToolCall, str | None]:
    """The ToolCall for a call item, and the patch text it applies, if any."""
    kind = payload["type"]
    call_id = payload.get("call_id") or payload.get("id")
    call = ToolCall(name=str(payload.get("name") or kind.removesuffix("_call")), id=call_id if isinstance(call_id, str) else None)
    patch: str | None = None
    if kind == "function_call":
        raw = payload.get("arguments")
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            args = raw
        call.arguments = args if isinstance(args, (dict, str)) else raw
        if isinstance(args, dict):
            command = args.get("cmd") if call.name == "exec_command" else args.get("command")
            call.code = command_text(command) if call.name != "apply_patch" else None
            if call.name == "apply_patch":
                patch = patch_in(args.get("input") or args.get("patch"))
            elif call.name == "update_plan" and isinstance(args.get("plan"), list):
                call.todos = [
                    TodoItem(str(item.get("step", "")), str(item.get("status", "pending")))
                    for item in args["plan"]
                    if isinstance(item, dict)
                ]
        elif call.name == "apply_patch":
            patch = patch_in(raw if isinstance(raw, str) else None)
    elif kind == "custom_tool_call":
        call.arguments = payload.get("input")
        if call.name == "apply_patch":
            patch = patch_in(payload.get("input"))
    elif kind == "local_shell_call":
        action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
        call.name, call.arguments, call.code = "local_shell", action, command_text(action.get("command"))
    elif kind == "image_generation_call":
        call.name = "image_generation"
        call.arguments = {"revised_prompt": payload["revised_prompt"]} if isinstance(payload.get("revised_prompt"), str) else None
        _image_result(call, payload)
    elif kind == "dynamic_tool_call":
        namespace, tool = payload.get("namespace"), payload.get("tool")
        call.name = ".".join(str(part) for part in (namespace, tool) if part) or "dynamic tool"
        call.arguments = payload.get("arguments") if isinstance(payload.get("arguments"), (dict, str)) else None
    else:  # web_search_call: the query is the input; the results go to the model, never into the log
        action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
        call.name, call.arguments = "web_search", {key: value for key, value in action.items() if key != "type"} or action
        call.is_error = payload.get("status") == "failed"
        call.output = None if call.is_error else NO_SEARCH_RESULTS
    if call.code:
        call.language = "bash"
        patch = patch or patch_in(call.code)
    return call, patch


def _image_result(call: ToolCall, payload: dict[str, Any]) -> None:
    """An image generation's outcome: its picture (base64 PNG in `result`), where Codex saved
    it, and a failed status as an error."""
    result = payload.get("result")
    if isinstance(result, str) and result and not call.images:
        call.images.append(Image("image/png", result))
    status = payload.get("status")
    saved = payload.get("saved_path")
    call.is_error = call.is_error or status in ("failed", "incomplete")
    said = f"saved to {saved}" if isinstance(saved, str) and saved else (f"status: {status}" if isinstance(status, str) else "")
    call.output = said or call.output


def _dynamic_result(call: ToolCall, payload: dict[str, Any]) -> None:
    """A dynamic tool's `dynamic_tool_call_response`: its content items, and `success: false`
    (with its `error`) as a failure."""
    info = classify({key: payload.get(key) for key in ("content_items", "success", "error")})
    if info.text or call.output is None:
        call.output = info.text
    call.is_error = call.is_error or info.is_error
    call.duration_s = end_duration(payload.get("duration")) or call.duration_s


def _as_poll(call: ToolCall, origin: ToolCall, chars: Any, info: OutputInfo, repeated: bool) -> None:
    """A write_stdin on a running command says what it did in a line, not as raw JSON. When
    the command's end event gave it its whole output, the poll's bytes are `repeated` there
    and are counted here instead of shown twice."""
    command = (origin.code or origin.name).splitlines()[0] if (origin.code or origin.name) else "a command"
    command = command[:80] + "…" if len(command) > 80 else command
    sent = f"sent {chars!r} to" if isinstance(chars, str) and chars else "waited on"
    call.arguments = f"{sent} `{command}` (call {origin.id})"
    if not repeated or (info.is_error and info.exit_code is None):  # a poll that failed itself keeps its error
        return
    if info.text:
        call.output = f"{len(info.text.encode())} more bytes of its output, shown with that command"
    elif not info.is_error:
        call.output = "no new output"


def _spawned_id(output: str | None) -> str | None:
    """The child thread a `spawn_agent` call's output names: `{"agent_id": "<thread id>", "nickname"?: …}`."""
    try:
        value = json.loads(output) if output and output.lstrip().startswith("{") else None
    except ValueError:
        return None
    agent = value.get("agent_id") if isinstance(value, dict) else None
    return agent if isinstance(agent, str) and agent else None


class ToolCalls:
    """Every call of one session by call_id, with the pieces of its result as they come in."""

    def __init__(self) -> None:
        self.calls: dict[str, ToolCall] = {}
        self.call_step: dict[str, Step] = {}
        self.patches: dict[str, str] = {}
        self.outputs: dict[str, OutputInfo] = {}
        self.ends: dict[str, dict[str, Any]] = {}
        self.patch_ends: dict[str, dict[str, Any]] = {}
        self.spawned: dict[str, str] = {}  # call_id -> the thread that call spawned

    def logged(self, payload: dict[str, Any]) -> bool:
        """Whether the call an event names (`callId` in a dynamic tool's request) is known already."""
        return str(payload.get("callId", payload.get("call_id"))) in self.calls

    def event_call(self, kind: str, payload: dict[str, Any], step: Step) -> None:
        """The call an event of EVENT_CALLS records, which no item of this file logged."""
        self.call({**payload, "type": EVENT_CALLS[kind], "call_id": payload.get("callId", payload.get("call_id"))}, step)

    def call(self, payload: dict[str, Any], step: Step) -> None:
        call, patch = _tool_call(payload)
        step.tool_calls.append(call)
        if call.id and payload["type"] != "web_search_call":
            self.calls[call.id] = call
            self.call_step[call.id] = step
            if patch:
                self.patches[call.id] = patch

    def orphan(self, call_id: str | None, line: int, step: Step) -> None:
        """An output whose call was never logged still shows, on a stand-in call."""
        orphan = ToolCall(name="(unknown call)", id=call_id, orphan=True)
        step.tool_calls.append(orphan)
        self.calls[call_id or f"orphan:{line}"] = orphan
        self.call_step[call_id or f"orphan:{line}"] = step

    def output(self, payload: dict[str, Any]) -> None:
        call_id = payload.get("call_id")
        output = payload.get("output", payload.get("content_items"))
        self.outputs[call_id if isinstance(call_id, str) else None] = classify(output, bool(payload.get("_is_error")))

    def event(self, kind: Any, payload: dict[str, Any]) -> bool:
        """Keep an event_msg that ends a call; False when it is about something else."""
        if kind == "exec_command_end":
            self.ends[str(payload.get("call_id"))] = payload
        elif kind == "patch_apply_end":
            self.patch_ends[str(payload.get("call_id"))] = payload
        elif kind == "item_completed":
            item = payload.get("item") if isinstance(payload.get("item"), dict) else {}
            if item.get("type") == "CommandExecution":
                self.ends[str(item.get("id"))] = item
            elif item.get("type") == "FileChange":
                self.patch_ends[str(item.get("id"))] = {**item, "success": item.get("status") != "failed"}
        elif kind == "image_generation_end" and str(payload.get("call_id")) in self.calls:
            _image_result(self.calls[str(payload["call_id"])], payload)
            self.ends.setdefault(str(payload["call_id"]), {})
        elif kind == "dynamic_tool_call_response" and str(payload.get("call_id")) in self.calls:
            _dynamic_result(self.calls[str(payload["call_id"])], payload)
            self.ends.setdefault(str(payload["call_id"]), {})
        elif kind == "dynamic_tool_call_request":
            pass  # its call was made by the walk (event_call)
        elif kind == "collab_agent_spawn_end":
            if payload.get("new_thread_id"):
                self.spawned[str(payload.get("call_id"))] = str(payload["new_thread_id"])
            self.ends.setdefault(str(payload.get("call_id")), {})
        elif kind == "collab_waiting_end":
            if payload.get("call_id"):
                self.ends.setdefault(str(payload["call_id"]), {})
        elif kind == "sub_agent_activity":
            # Newest builds: `event_id` is the spawning call, `agent_thread_id` the child thread.
            if payload.get("event_id") and payload.get("agent_thread_id"):
                self.spawned.setdefault(str(payload["event_id"]), str(payload["agent_thread_id"]))
        elif kind == "collab_tool_call" and str(payload.get("call_id") or payload.get("id")) in self.calls:
            call_id = str(payload.get("call_id") or payload.get("id"))
            receivers = payload.get("receiver_thread_ids")
            if payload.get("tool") == "spawn_agent" and isinstance(receivers, list) and receivers and isinstance(receivers[0], str):
                self.spawned[call_id] = receivers[0]
            self.ends.setdefault(call_id, {})
        else:
            return False
        return True

    def settle(self, cwd: str | None) -> None:
        processes: dict[str, str] = {}
        stdin_calls = []
        for call_id, call in self.calls.items():
            if call.name == "write_stdin":
                stdin_calls.append((call_id, call))
                continue
            info = self._apply_output(call_id, call)
            if info and info.running_session:
                processes[info.running_session] = call_id
            end = self.ends.get(call_id)
            if end:
                process = end.get("process_id")
                if process is not None:
                    processes.setdefault(str(process), call_id)
                code = end_exit_code(end)
                if code is not None:
                    # The process's final code; a `Process running…` output had none to give.
                    call.exit_code, call.is_error = code, code != 0
                # The end event holds the command's whole output and real duration; the call's own
                # output may be a "Process running" notice after the first second, or cut short.
                whole = end.get("aggregated_output")
                if isinstance(whole, str) and (whole or call.output is None):
                    call.output = whole
                call.duration_s = end_duration(end.get("duration")) or call.duration_s
            self._apply_patch(call_id, call, cwd)
            child = self.spawned.get(call_id) or (_spawned_id(call.output) if call.name == "spawn_agent" else None)
            if child:
                call.child_session_id = child
                self.call_step[call_id].child_session_ids.append(child)
            if info is None and end is None and call_id not in self.patch_ends and not call.orphan:
                call.missing_result = True
        for call_id, call in stdin_calls:
            info = self._apply_output(call_id, call)
            if info is None:
                call.missing_result = True
                continue
            # `Process exited with code N` here reports the polled process, not this call: the failure
            # belongs to the exec_command that started it (once), unless its end event already said so.
            call.exit_code, call.is_error = None, info.is_error and info.exit_code is None
            args = call.arguments if isinstance(call.arguments, dict) else {}
            origin_id = processes.get(str(args.get("session_id")), "")
            origin = self.calls.get(origin_id)
            if origin is None:
                continue
            if info.exit_code is not None and origin.exit_code is None:
                origin.exit_code, origin.is_error = info.exit_code, info.exit_code != 0
            _as_poll(call, origin, args.get("chars"), info, repeated=origin_id in self.ends)

    def _apply_output(self, call_id: str, call: ToolCall) -> OutputInfo | None:
        info = self.outputs.get(call_id)
        if info is None:
            return None
        call.output = info.text
        call.exit_code = info.exit_code
        call.is_error = call.is_error or info.is_error
        call.duration_s = info.duration_s
        call.images.extend(info.images)
        return info

    def _apply_patch(self, call_id: str, call: ToolCall, cwd: str | None) -> None:
        end = self.patch_ends.get(call_id)
        if end is not None:
            if end.get("success") is False:
                call.is_error = True
            if call.output is None:
                call.output = "\n".join(s for s in (end.get("stdout"), end.get("stderr")) if isinstance(s, str) and s)
            call.changes = changes_from_event(end.get("changes"), cwd)
        if not call.changes and call_id in self.patches:
            # One set of changes per call: the structured event when persisted, else the patch text.
            call.changes = parse_apply_patch(self.patches[call_id], cwd)
