"""An Amp thread's messages into steps.

Amp is closed source: the thread's shape rests on the public descriptions of tools that read
it (agentsview's Amp parser and its tests, the amp-threads Rust types, tokscale's parser,
amp-acp). A thread is `{v, id, created, title, agentMode, messages, relationships, env, meta,
usageLedger}`. A message is `{role: user | assistant | info, messageId, content, usage,
state}`; content blocks are `text`, `thinking`, `redacted_thinking`, `tool_use`
`{id, name, input}` and, on user messages, `tool_result` `{toolUseID, run: {status, result,
error}}` (status `done`, `error`, `cancelled`, `rejected-by-user`, `blocked-on-user`).

Tokens: each assistant message's `usage` is its one inference (`inputTokens` uncached,
`cacheCreationInputTokens`, `cacheReadInputTokens`, `outputTokens`, `model`). For `gpt-*`
models Amp files the uncached prompt under cache creation (agentsview): it is input there.
The `usageLedger.events` list every inference the thread paid for, the messages' among them;
what the ledger holds beyond the messages (per model) is one step of its own, so nothing is
counted twice and nothing is lost.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from replay_site.diffs import change_from_texts
from replay_site.model import Detail, FileChange, Image, Session, Step, TodoItem, ToolCall, Usage
from replay_site.readers.fields import answered_call, count, mapping, mark_unanswered, raw_json, string
from replay_site.readers.fields import text as as_text
from replay_site.readers.timestamps import utc_time

SHELLS = frozenset({"Bash", "bash", "shell_command"})
FAILED = frozenset({"error", "cancelled", "rejected-by-user"})
TODO_STATUS = {"todo": "pending", "in-progress": "in_progress", "completed": "completed"}


def usage_of(raw: dict[str, Any], model: str | None) -> Usage:
    """One inference's tokens; a gpt model's cache creation is its uncached input."""
    created = count(raw.get("cacheCreationInputTokens"))
    uncached = count(raw.get("inputTokens") if "inputTokens" in raw else raw.get("input"))
    if (model or "").startswith("gpt-"):
        return Usage(input=uncached + created, output=count(raw.get("outputTokens") if "outputTokens" in raw else raw.get("output")),
                     cache_read=count(raw.get("cacheReadInputTokens")))
    return Usage(input=uncached, output=count(raw.get("outputTokens") if "outputTokens" in raw else raw.get("output")),
                 cache_read=count(raw.get("cacheReadInputTokens")), cache_write_5m=created)


def file_changes(name: str, arguments: dict[str, Any]) -> list[FileChange]:
    """`edit_file` (old_str → new_str) and `create_file` (content)."""
    path = string(arguments.get("path"))
    if path is None:
        return []
    if name == "edit_file" and isinstance(arguments.get("old_str"), str) and isinstance(arguments.get("new_str"), str):
        return [change_from_texts(path, arguments["old_str"], arguments["new_str"])]
    if name == "create_file" and isinstance(arguments.get("content"), str):
        return [change_from_texts(path, None, arguments["content"])]
    return []


def todos_of(arguments: dict[str, Any]) -> list[TodoItem]:
    todos = arguments.get("todos") if isinstance(arguments.get("todos"), list) else []
    return [TodoItem(as_text(item.get("content")), TODO_STATUS.get(as_text(item.get("status")), "pending"))
            for item in todos if isinstance(item, dict)]


def _summary_text(summary: dict[str, Any]) -> str:
    """An info message's summary: its text, or the thread that holds it."""
    if summary.get("type") == "thread":
        return f"Summarised in thread {as_text(summary.get('thread'))}"
    return as_text(summary.get("summary"))


def result_text(result: Any) -> str:
    """A tool's result as shown: a string, a Bash `output`, a Read `content`, an edit's `diff`,
    lines of a list of strings, else the JSON."""
    if result is None:
        return ""
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        for key in ("output", "content", "diff"):
            if isinstance(result.get(key), str) and result[key]:
                return result[key]
        return raw_json(result, indent=True)
    if isinstance(result, list) and all(isinstance(item, str) for item in result):
        return "\n".join(result)
    return raw_json(result, indent=True)


class Builder:
    """One thread's messages into the session's steps, and the tokens its messages hold per model."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.calls: dict[str, ToolCall] = {}
        self.answered: set[int] = set()
        self.by_model: dict[str, Usage] = {}
        self.not_understood: set[int] = set()
        self.stubs: list[Step] = []  # the current message's unknown parts, shown after it

    def add(self, index: int, message: dict[str, Any]) -> None:
        role = as_text(message.get("role")) or "(no role)"
        blocks = [block for block in message.get("content") if isinstance(block, dict)] if isinstance(message.get("content"), list) else []
        if isinstance(message.get("content"), str):
            blocks = [{"type": "text", "text": message["content"]}]
        self.session.count_record(f"message/{role}"[:40])
        self.stubs = []
        if role == "assistant":
            self.session.steps.append(self._assistant(index, message, blocks))
        elif role in ("user", "info"):
            self._user(index, role, blocks, utc_time(mapping(message.get("meta")).get("sentAt")))
        else:
            self._unknown(index, f"message/{role}"[:40], message, role)
        self.session.steps.extend(self.stubs)  # after the message's own step

    def _unknown(self, index: int, kind: str, value: dict[str, Any], role: str) -> None:
        """A message or content block of a kind no description names: a stub, and the message
        counted as not understood under that kind."""
        self.session.warn("unknown_event", f"message {index}: unknown Amp {kind!r}")
        if index not in self.not_understood:  # a message is counted once, whatever it holds
            self.not_understood.add(index)
            self.session.not_understood(kind, counted_as=f"message/{role}"[:40])
        self.stubs.append(Step("event", title=f"Unknown: {kind}", details=[Detail("Raw", raw_json(value, indent=True), "json")]))

    def _user(self, index: int, role: str, blocks: list[dict[str, Any]], when: datetime | None) -> None:
        """A user turn (its text and images; the results it carries join their calls), or an
        `info` message: a note, or the summary a handoff or a compaction left."""
        texts, images = [], []
        for block in blocks:
            kind = as_text(block.get("type"))
            if kind == "tool_result":
                self._result(block)
            elif kind == "text":
                texts.append(as_text(block.get("text")))
            elif kind == "image" and isinstance(mapping(block.get("source")).get("data"), str):
                images.append(Image(string(mapping(block.get("source")).get("media_type")) or "image/png", block["source"]["data"]))
            elif kind == "summary" and role == "info":
                texts.append(_summary_text(mapping(block.get("summary"))))
            else:
                self._unknown(index, f"block/{kind or '(no type)'}"[:40], block, role)
        text = "\n\n".join(filter(None, texts))
        if role == "user" and (text or images):
            self.session.steps.append(Step("user", text=text, images=images, timestamp=when))
        elif text:
            self.session.steps.append(Step("context", title="Info", text=text, collapsed=True, timestamp=when))

    def _assistant(self, index: int, message: dict[str, Any], blocks: list[dict[str, Any]]) -> Step:
        raw_usage = mapping(message.get("usage"))
        model = string(raw_usage.get("model"))
        step = Step("assistant", model=model, timestamp=utc_time(raw_usage.get("timestamp")))
        texts, thoughts = [], []
        for block in blocks:
            kind = as_text(block.get("type"))
            if kind == "text":
                texts.append(as_text(block.get("text")))
            elif kind == "thinking":
                thoughts.append(as_text(block.get("thinking")))
            elif kind == "tool_use":
                step.tool_calls.append(self._call(block))
            elif kind != "redacted_thinking":
                self._unknown(index, f"block/{kind or '(no type)'}"[:40], block, "assistant")
        step.text, step.thinking = "\n\n".join(filter(None, texts)), "\n\n".join(filter(None, thoughts))
        if raw_usage:
            step.usage = usage_of(raw_usage, model)
            self.by_model[model or ""] = self.by_model.get(model or "", Usage()) + step.usage
        state = mapping(message.get("state"))
        if state.get("type") == "error":
            step.error = as_text(mapping(state.get("error")).get("message")) or "the model request failed"
        return step

    def _call(self, block: dict[str, Any]) -> ToolCall:
        arguments = block.get("input")
        call = ToolCall(as_text(block.get("name")) or "tool", id=string(block.get("id")),
                        arguments=arguments if isinstance(arguments, (dict, str)) else None)
        if isinstance(arguments, dict):
            command = arguments.get("cmd") or arguments.get("command")
            if call.name in SHELLS and isinstance(command, str):
                call.code, call.language = command, "bash"
            if call.name == "todo_write":
                call.todos = todos_of(arguments)
        if call.id:
            self.calls[call.id] = call
        return call

    def _result(self, block: dict[str, Any]) -> None:
        call, orphan = answered_call(self.calls, self.answered, string(block.get("toolUseID")) or string(block.get("tool_use_id")))
        run = mapping(block.get("run"))
        status = as_text(run.get("status"))
        if status == "blocked-on-user":  # still waiting for the user's approval: no result yet
            self.answered.discard(id(call))
            return
        result = run.get("result")
        # `progress` is what the tool reported while it ran (a subagent's work, a command's output)
        call.output = result_text(result) if result is not None else result_text(run.get("progress")) or as_text(block.get("content"))
        call.is_error = status in FAILED
        if status == "error":
            call.output = as_text(mapping(run.get("error")).get("message")) or call.output or "error"
        elif status in ("cancelled", "rejected-by-user"):
            call.output = call.output or status
        if isinstance(result, dict) and isinstance(result.get("exitCode"), int):
            call.exit_code = result["exitCode"]
            call.is_error = call.is_error or call.exit_code != 0
        if not call.is_error and isinstance(call.arguments, dict):
            call.changes = file_changes(call.name, call.arguments)
        if orphan:
            self.session.steps.append(Step("context", title="Tool result without its call", tool_calls=[call]))

    def ledger(self, events: list[Any]) -> None:
        """The ledger's tokens per model less the messages': one step per model with more."""
        totals: dict[str, Usage] = {}
        for event in events:
            if isinstance(event, dict):
                model = string(event.get("model")) or ""
                totals[model] = totals.get(model, Usage()) + usage_of(mapping(event.get("tokens")), model)
        for model in sorted(totals):
            have, held = totals[model], self.by_model.get(model, Usage())
            beyond = Usage(input=max(0, have.input - held.input), output=max(0, have.output - held.output),
                           cache_read=max(0, have.cache_read - held.cache_read),
                           cache_write_5m=max(0, have.cache_write_5m - held.cache_write_5m))
            if beyond.total:
                self.session.steps.append(Step("event", model=model or None, usage=beyond, collapsed=True,
                                               title=f"Inferences in the usage ledger beyond the messages: {model or 'model not named'}"))

    def finish(self) -> None:
        mark_unanswered(self.calls.values(), self.answered)
