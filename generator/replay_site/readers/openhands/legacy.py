"""OpenHands' first event format (V0, `openhands/events/serialization/event.py`), still written
in 2026 by the app server's V0 conversations and by "export trajectory".

A conversation of the file store (`$FILE_STORE_PATH`, default `~/.openhands`) is
`sessions/<id>/` (or `users/<user>/conversations/<id>/`) with `events/<n>.json`, one event a
file, and `metadata.json` (its title); an exported trajectory is a JSON list of the same
events. An event is an action (`action`, `args`) or an observation (`observation`, `content`,
`extras`, `cause`: the id of the action it answers). An action the model chose carries
`tool_call_metadata`: the tool call's id and the model response it came in, with that
response's `usage` (counted once per response id). `llm_metrics` holds only running totals:
what they count beyond the responses' own usage (a reply without a call) is one step.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from replay_site.diffs import change_from_texts
from replay_site.model import Detail, Problem, Session, Step, TodoItem, ToolCall, Usage
from replay_site.readers.fields import count, first_request, listed, mapping, mark_unanswered, raw_json, string, text, user_prompts
from replay_site.readers.files import BOM, Head, open_log
from replay_site.readers.jsonl import load_json
from replay_site.readers.timestamps import utc_time

# Actions and observations that are bookkeeping: counted, not shown.
NOT_SHOWN = frozenset({"change_agent_state", "null", "agent_state_changed", "recall", "condensation_request"})
# Actions that are the model's tool calls, by the tool the V0 agent gives each.
TOOL_OF = {"run": "execute_bash", "run_ipython": "execute_ipython_cell", "read": "str_replace_editor", "write": "str_replace_editor",
           "edit": "str_replace_editor", "browse": "browser", "browse_interactive": "browser", "delegate": "delegate",
           "think": "think", "finish": "finish", "call_tool_mcp": "mcp", "task_tracking": "task_tracker"}
TODO_STATUS = {"todo": "pending", "in_progress": "in_progress", "done": "completed"}
# Observations that answer an action (by its id in `cause`).
RESULTS = frozenset({"run", "run_ipython", "read", "write", "edit", "browse", "error", "user_rejected", "think", "mcp", "delegate",
                     "success", "task_tracking", "download", "file_download", "loop_detection"})


def usage_of(usage: Any) -> Usage | None:
    """A litellm usage: the prompt holds the cached tokens (and Anthropic's cache writes)."""
    usage = mapping(usage)
    prompt = count(usage.get("prompt_tokens"))
    cached = count(mapping(usage.get("prompt_tokens_details")).get("cached_tokens")) or count(usage.get("cache_read_input_tokens"))
    written = count(usage.get("cache_creation_input_tokens"))
    reasoning = count(mapping(usage.get("completion_tokens_details")).get("reasoning_tokens"))
    found = Usage(input=max(prompt - cached - written, 0), output=count(usage.get("completion_tokens")), cache_read=cached,
                  cache_write_5m=written, reasoning=reasoning)
    return found or None


@dataclass
class LegacyBuilder:
    session: Session
    by_response: dict[str, Step] = field(default_factory=dict)
    by_action: dict[Any, ToolCall] = field(default_factory=dict)
    answered: set[int] = field(default_factory=set)
    counted: Usage = field(default_factory=Usage)  # what the responses' own usage counts
    running: dict[str, Any] = field(default_factory=dict)  # the last running totals seen
    model: str | None = None  # the last model a response named

    def build(self, events: list[tuple[dict[str, Any], str]]) -> None:
        for record, where in events:
            kind = text(record.get("action") or record.get("observation"))[:60] or "(no kind)"
            metrics = mapping(mapping(record.get("llm_metrics")).get("accumulated_token_usage"))
            if metrics:
                self.running = metrics
            if kind in NOT_SHOWN:
                self.session.count_record(kind, "not_shown")
                if kind == "agent_state_changed":  # the last state the agent reached is how it ended
                    self._ended(mapping(record.get("extras")).get("agent_state"))
                continue
            self.session.count_record(kind)
            if "action" in record:
                self._action(record, kind, where)
            elif "observation" in record and kind in RESULTS:
                self._observation(record, kind, where)
            else:
                self._unknown(record, kind, where)
        mark_unanswered(self.by_action.values(), self.answered)
        self._unattributed()

    def _ended(self, state: Any) -> None:
        # V0's agent states; a later running (or any other) state undoes an earlier end
        ended = {"finished": "completed", "paused": "interrupted", "stopped": "interrupted", "error": "failed"}
        if isinstance(state, str):
            self.session.outcome = ended.get(state)

    def _step_of(self, record: dict[str, Any]) -> Step:
        """The step of the model response an agent action came in (one per response id)."""
        response = mapping(mapping(record.get("tool_call_metadata")).get("model_response"))
        ident = string(response.get("id"))
        step = self.by_response.get(ident) if ident else None
        if step is None:
            self.model = string(response.get("model")) or self.model
            step = Step("assistant", timestamp=utc_time(record.get("timestamp")), model=self.model,
                        usage=usage_of(response.get("usage")))
            self.counted = self.counted + (step.usage or Usage())
            self.session.steps.append(step)
            if ident:
                self.by_response[ident] = step
        return step

    def _action(self, record: dict[str, Any], kind: str, where: str) -> None:
        args = mapping(record.get("args"))
        when = utc_time(record.get("timestamp"))
        if kind == "message" and record.get("source") == "user":
            images = [url for url in args.get("image_urls") or [] if isinstance(url, str)]
            self.session.steps.append(Step("user", timestamp=when, text=text(args.get("content")) +
                                           "".join(f"\n[image: {url[:200]}]" for url in images)))
        elif kind == "system":
            self.session.steps.append(Step("context", timestamp=when, title="System prompt", collapsed=True,
                                           details=[Detail("System prompt", text(args.get("content")))]))
        elif kind == "condensation":
            self.session.steps.append(Step("context", timestamp=when, title="Context condensed", collapsed=True,
                                           text=text(args.get("summary"))))
        elif kind == "message":
            step = self._step_of(record)
            step.text = "\n\n".join(filter(None, (step.text, text(args.get("content")))))
        elif kind in TOOL_OF:
            step = self._step_of(record)
            step.text = "\n\n".join(filter(None, (step.text, text(args.get("thought")), text(args.get("final_thought")))))
            call = self._call(record, kind, args)
            self.by_action[record.get("id")] = call
            step.tool_calls.append(call)
            if kind == "finish":  # the agent's last word: no observation answers it
                self.answered.add(id(call))
        else:
            self._unknown(record, kind, where)

    @staticmethod
    def _call(record: dict[str, Any], kind: str, args: dict[str, Any]) -> ToolCall:
        metadata = mapping(record.get("tool_call_metadata"))
        name = string(metadata.get("function_name")) or TOOL_OF[kind]
        call = ToolCall(name, id=string(metadata.get("tool_call_id")) or str(record.get("id")),
                        arguments={key: value for key, value in args.items() if key not in ("thought", "security_risk")} or None)
        if kind == "run" and isinstance(args.get("command"), str):
            call.code, call.language = args["command"], "bash"
        elif kind == "run_ipython" and isinstance(args.get("code"), str):
            call.code, call.language = args["code"], "python"
        elif kind == "task_tracking":
            call.todos = [TodoItem(text(item.get("title")), TODO_STATUS.get(text(item.get("status")), "pending"))
                          for item in args.get("task_list") or [] if isinstance(item, dict)]
        return call

    def _observation(self, record: dict[str, Any], kind: str, where: str) -> None:
        call = self.by_action.get(record.get("cause"))
        if call is None or id(call) in self.answered:
            call = ToolCall(text(mapping(record.get("tool_call_metadata")).get("function_name")) or kind, orphan=True)
            self.session.steps.append(Step("event", timestamp=utc_time(record.get("timestamp")),
                                           title="Result of a call not in the log", tool_calls=[call]))
        self.answered.add(id(call))
        extras = mapping(record.get("extras"))
        call.output = text(record.get("content"))
        call.is_error = kind == "error" or record.get("success") is False
        if kind == "run":
            exit_code = mapping(extras.get("metadata")).get("exit_code")
            if isinstance(exit_code, int) and not isinstance(exit_code, bool) and exit_code >= 0:
                call.exit_code = exit_code
                call.is_error = call.is_error or exit_code != 0
        elif kind in ("edit", "write") and isinstance(extras.get("new_content"), str) and string(extras.get("path")):
            old = extras.get("old_content") if extras.get("prev_exist") is not False else None
            call.changes = [change_from_texts(extras["path"], old if isinstance(old, str) else None, extras["new_content"])]
        elif kind == "user_rejected":
            call.output = call.output or "Rejected by the user"

    def _unknown(self, record: dict[str, Any], kind: str, where: str) -> None:
        self.session.not_understood(kind)
        self.session.problems.append(Problem("unknown_event", f"unknown OpenHands event kind {kind!r}", where))
        self.session.steps.append(Step("event", timestamp=utc_time(record.get("timestamp")), title=f"Unknown event: {kind}",
                                       details=[Detail("Raw event", raw_json(record, indent=True), "json")]))

    def _unattributed(self) -> None:
        """The running totals' tokens no response's own usage counts (replies without a call),
        on one step, so the session's figures are the totals, each token once."""
        prompt, cached = count(self.running.get("prompt_tokens")), count(self.running.get("cache_read_tokens"))
        written = count(self.running.get("cache_write_tokens"))
        total = Usage(input=max(prompt - cached - written, 0), output=count(self.running.get("completion_tokens")),
                      cache_read=cached, cache_write_5m=written)
        rest = Usage(input=max(total.input - self.counted.input, 0), output=max(total.output - self.counted.output, 0),
                     cache_read=max(total.cache_read - self.counted.cache_read, 0),
                     cache_write_5m=max(total.cache_write_5m - self.counted.cache_write_5m, 0))
        if rest:
            self.session.steps.append(Step("event", model=self.model, usage=rest, collapsed=True,
                                           title="Tokens of responses without a call (from the running totals)"))


# --- the files -----------------------------------------------------------------------------------

EVENT_FILE = re.compile(r"^\d+\.json$")
METADATA = "metadata.json"
_KIND = re.compile(rb'"(?:action|observation)"\s*:\s*"[a-z_]+"')
_SOURCE = re.compile(rb'"source"\s*:\s*"(?:agent|user|environment)"')
_LIST = re.compile(rb"^\s*\[\s*\{")


def sniff(path: Path, head: Head) -> str | None:
    """"events" for an event file of a V0 conversation, "trajectory" for an exported one."""
    data = head.data[:65536].removeprefix(BOM)
    if path.suffix != ".json" or not (_KIND.search(data) and _SOURCE.search(data)):
        return None
    if _LIST.match(data):
        return "trajectory"
    return "events" if (EVENT_FILE.match(path.name) and path.parent.name == "events") or head.named else None


def _title(session: Session, metadata: dict[str, Any]) -> None:
    session.title = string(metadata.get("title")) or first_request(user_prompts(session.steps)) or session.id
    session.number_steps()
    times = [step.timestamp for step in session.steps if step.timestamp]
    session.started_at = utc_time(metadata.get("created_at")) or (min(times) if times else None)
    session.ended_at = utc_time(metadata.get("last_updated_at")) or (max(times) if times else None)


def load_folder(paths: list[Path], session: Session, label, state_name: str, key) -> tuple[dict[str, Any], list[tuple[dict[str, Any], str]]]:
    """A conversation folder's files, one JSON object each, in `key` order: the one named
    `state_name` (counted, not shown) and the events with how warnings name them."""
    state: dict[str, Any] = {}
    events = []
    for path in sorted(paths, key=key):
        record = load_json(path, session.problems, label(path))
        if record is None:
            continue
        if path.name == state_name:
            session.count_record(path.stem, "not_shown")
            state = record
        else:
            events.append((record, label(path)))
    return state, events


def read_conversation(folder: Path, paths: list[Path], label, format_name: str) -> Session:
    """A conversation folder of the file store: its events in id order, then its metadata."""
    session = Session(id=folder.name, format=format_name, source=label(paths[0]))
    metadata, events = load_folder(paths, session, label, METADATA,
                                   lambda path: (int(path.stem) if path.stem.isdigit() else -1, path.name))
    session.id = string(metadata.get("conversation_id")) or session.id
    LegacyBuilder(session).build(events)
    _title(session, metadata)
    return session


def read_trajectory(path: Path, label: str, format_name: str) -> Session:
    """An exported trajectory: a JSON list of events."""
    session = Session(id=path.stem, format=format_name, source=label)
    try:
        with open_log(path) as handle:
            events = orjson.loads(handle.read().removeprefix(BOM))
    except (OSError, orjson.JSONDecodeError) as exc:
        session.problems.append(Problem("bad_line", f"unreadable JSON file ({exc})", label))
        events = []
    records = [(record, f"{label}: event {index}") for index, record in enumerate(listed(events)) if isinstance(record, dict)]
    if len(records) < len(listed(events)):
        session.problems.append(Problem("bad_line", f"{len(listed(events)) - len(records)} item(s) that are not events, skipped", label))
    LegacyBuilder(session).build(records)
    _title(session, {})
    return session
