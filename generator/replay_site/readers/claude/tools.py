"""Claude Code tool calls: a `tool_use` block into a ToolCall, and its `tool_result` into that call's outcome.

Claude Code records each tool twice over: the `tool_use` input the model sent, and, on the user line
that answers it, both the `tool_result` the model saw and a tool-specific `toolUseResult` object
(structured patch, todo lists, the subagent's id...). We show what the model saw as the output and
take the structured extras from `toolUseResult` where they are exact.
"""
from __future__ import annotations

import re
from itertools import count
from typing import Any

from replay_site.diffs import change_from_texts, diff_texts, hunks_to_diff
from replay_site.model import FileChange, Image, TodoItem, ToolCall
from replay_site.readers.fields import raw_json

# Inline images are embedded in the page as base64; past this size one image would swamp it.
MAX_IMAGE_BASE64 = 2 * 1024 * 1024

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
# Agent teams' shared task list (Claude Code 2.1.x; also TodoWrite's successor).
TASK_TOOLS = frozenset({"TaskCreate", "TaskUpdate", "TaskGet", "TaskList"})

_EXIT_CODE = re.compile(r"^(?:Error: )?Exit code (-?\d+)\b")
_AGENT_ID_TEXT = re.compile(r"\bagentId: ([\w-]+)")
# A TaskList result line: `#3 [in_progress] Write parser (alice)`.
_TASK_LINE = re.compile(r"^#(\w+) \[(\w+)\] (.+?)(?: \(([^()]+)\))?$", re.M)


def call_from_use(block: dict[str, Any]) -> ToolCall:
    """The call as the model made it; changes and todos from the input, refined later by the result."""
    name = str(block.get("name") or "(unnamed tool)")
    raw_input = block.get("input")
    args = raw_input if isinstance(raw_input, dict) else {}
    call = ToolCall(name=name, id=_str(block.get("id")), arguments=raw_input if raw_input is not None else None)
    if name == "Bash" and isinstance(args.get("command"), str):
        call.code, call.language = args["command"], "bash"
    elif name in EDIT_TOOLS:
        call.changes = _changes_from_input(name, args)
    elif name == "TodoWrite":
        call.todos = todos_from(args.get("todos"))
    elif name in TASK_TOOLS:
        call.todos = _task_from_input(name, args)
    elif name == "SendMessage":
        call.code = _message_text(args)
    elif name == "Monitor" and isinstance(args.get("command"), str):
        call.code, call.language = args["command"], "bash"
    elif name == "ScheduleWakeup":
        call.code = _wakeup_text(args)
    return call


def _task_from_input(name: str, args: dict[str, Any]) -> list[TodoItem]:
    """The task a TaskCreate makes or a TaskUpdate changes, as one item of the task list."""
    subject = _str(args.get("subject")) or ""
    if name == "TaskCreate":
        return [TodoItem(subject or "(new task)", "pending")]
    if name == "TaskUpdate":
        task = f"#{args.get('taskId')}" if isinstance(args.get("taskId"), (str, int)) else "#?"
        return [TodoItem(f"{task} {subject}".strip(), _str(args.get("status")) or "pending")]
    return []


def _message_text(args: dict[str, Any]) -> str:
    """A teammate message as it reads: `→ alice (broadcast): body`."""
    to = _str(args.get("recipient") or args.get("to")) or "everyone"
    kind = _str(args.get("type"))
    body = _str(args.get("content") or args.get("message")) or _str(args.get("summary")) or ""
    return f"→ {to}" + (f" ({kind})" if kind and kind != "message" else "") + (f": {body}" if body else "")


def _wakeup_text(args: dict[str, Any]) -> str:
    delay = args.get("delaySeconds")
    when = f"in {delay}s" if isinstance(delay, (int, float)) and not isinstance(delay, bool) else "later"
    reason = _str(args.get("reason"))
    prompt = _str(args.get("prompt"))
    return "\n".join(part for part in (f"wake up {when}" + (f": {reason}" if reason else ""), f"then: {prompt}" if prompt else "") if part)


def workflow_run(call: ToolCall, result: Any) -> str | None:
    """The run a Workflow call launched (`runId`, else the last part of `transcriptDir`):
    its agents' transcripts are in `<session>/subagents/workflows/<run>/`."""
    if call.name != "Workflow" or not isinstance(result, dict):
        return None
    run = _str(result.get("runId")) or (_str(result.get("transcriptDir")) or "").rstrip("/").rpartition("/")[2]
    return run or None


def _changes_from_input(name: str, args: dict[str, Any]) -> list[FileChange]:
    """What the call asked for; used when the result lacks a structured patch (rejected, failed, old logs)."""
    path = _str(args.get("file_path") or args.get("notebook_path")) or "(unknown file)"
    if name == "Write":
        return [change_from_texts(path, None, _str(args.get("content")) or "")]
    if name == "Edit":
        return [change_from_texts(path, _str(args.get("old_string")) or "", _str(args.get("new_string")) or "")]
    if name == "MultiEdit":
        edits = args.get("edits") if isinstance(args.get("edits"), list) else []
        return [
            change_from_texts(path, _str(edit.get("old_string")) or "", _str(edit.get("new_string")) or "")
            for edit in edits
            if isinstance(edit, dict)
        ]
    # NotebookEdit replaces, inserts or deletes one cell; the old cell text is not in the input.
    source = _str(args.get("new_source")) or ""
    if args.get("edit_mode") == "delete":
        return [FileChange(path, "modify", "")]
    return [FileChange(path, "modify", diff_texts("", source))]


def todos_from(value: Any) -> list[TodoItem]:
    items = []
    for todo in value if isinstance(value, list) else []:
        if isinstance(todo, dict):
            text = _str(todo.get("content") or todo.get("text") or todo.get("activeForm")) or ""
            items.append(TodoItem(text, _str(todo.get("status")) or "pending"))
        elif isinstance(todo, str):
            # A malformed entry (seen in claude-code-log's edge cases) is still shown, not lost.
            items.append(TodoItem(todo))
    return items


def apply_result(call: ToolCall, block: dict[str, Any], result: Any) -> str | None:
    """Fill `call` from its tool_result block and the line's toolUseResult; return a spawned agent's id."""
    text, images, notes = content_parts(block.get("content"))
    call.images.extend(images)
    call.output = "\n".join(part for part in (text, *notes) if part)
    call.is_error = block.get("is_error") is True or (isinstance(result, str) and result.startswith("Error"))
    match = _EXIT_CODE.match(text) or (_EXIT_CODE.match(result) if isinstance(result, str) else None)
    if match:
        call.exit_code = int(match.group(1))
    if call.name == "TaskList" and not call.is_error:
        call.todos = [TodoItem(f"#{m.group(1)} {m.group(3)}" + (f" ({m.group(4)})" if m.group(4) else ""), m.group(2))
                      for m in _TASK_LINE.finditer(text)]
    if not isinstance(result, dict):
        return _agent_id_from_text(call, text)
    duration = result.get("durationMs", result.get("totalDurationMs"))
    if isinstance(duration, (int, float)) and not isinstance(duration, bool):
        call.duration_s = duration / 1000
    if call.name in EDIT_TOOLS:
        _changes_from_result(call, result)
    elif call.name == "TodoWrite" and isinstance(result.get("newTodos"), list):
        call.todos = todos_from(result["newTodos"])
    elif call.name == "Read":
        call.output = _read_output(call.output, result)
    elif call.name == "Bash" and result.get("interrupted") is True:
        call.output = (call.output + "\n" if call.output else "") + "[command interrupted]"
    elif call.name == "Artifact":
        call.url = _str(result.get("url"))
    elif call.name == "TaskList" and isinstance(result.get("tasks"), list):
        tasks = [task for task in result["tasks"] if isinstance(task, dict)]
        call.todos = [TodoItem(_task_label(task), _str(task.get("status")) or "pending") for task in tasks]
    agent_id = result.get("agentId")
    if isinstance(agent_id, str) and agent_id:
        return agent_id
    return _agent_id_from_text(call, text)


def _task_label(task: dict[str, Any]) -> str:
    owner = _str(task.get("owner"))
    return f"#{task.get('id')} {_str(task.get('subject')) or ''}".strip() + (f" ({owner})" if owner else "")


def _agent_id_from_text(call: ToolCall, text: str) -> str | None:
    # Newer Task results end with "agentId: <id> (for resuming ...)" even when toolUseResult is absent.
    if call.name in SUBAGENT_TOOLS:
        match = _AGENT_ID_TEXT.search(text)
        return match.group(1) if match else None
    return None


def _changes_from_result(call: ToolCall, result: dict[str, Any]) -> None:
    """The exact diff Claude Code applied: structuredPatch hunks, else before/after texts."""
    path = _str(result.get("filePath") or result.get("notebook_path")) or (
        call.changes[0].path if call.changes else "(unknown file)"
    )
    patch = result.get("structuredPatch")
    created = result.get("type") == "create"
    if isinstance(patch, list) and patch:
        call.changes = [FileChange(path, "add" if created else "modify", hunks_to_diff(h for h in patch if isinstance(h, dict)))]
    elif created and isinstance(result.get("content"), str):
        call.changes = [change_from_texts(path, None, result["content"])]
    elif isinstance(result.get("originalFile"), str) and isinstance(result.get("content"), str):
        call.changes = [change_from_texts(path, result["originalFile"], result["content"])]
    elif isinstance(result.get("original_file"), str) and isinstance(result.get("updated_file"), str):
        call.changes = [change_from_texts(path, result["original_file"], result["updated_file"])]


def _read_output(output: str, result: dict[str, Any]) -> str:
    """Read results are shown with line numbers; old logs that lack them get them from toolUseResult.file."""
    file = result.get("file")
    if not isinstance(file, dict) or not isinstance(file.get("content"), str) or "→" in output[:200]:
        return output
    start = file.get("startLine") if isinstance(file.get("startLine"), int) else 1
    lines = file["content"].splitlines()
    return "\n".join([f"{number:>6}→{line}" for number, line in zip(count(start), lines)])  # a quarter faster than str.format


def content_parts(content: Any) -> tuple[str, list[Image], list[str]]:
    """Text, images and notes (about images left out) from a string or a list of content blocks."""
    if isinstance(content, str):
        return content, [], []
    texts: list[str] = []
    images: list[Image] = []
    notes: list[str] = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, str):
            texts.append(part)
        elif not isinstance(part, dict):
            continue
        elif part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif part.get("type") == "image":
            image, note = image_from(part)
            if image:
                images.append(image)
            if note:
                notes.append(note)
        else:
            texts.append(raw_json(part))
    return "\n".join(texts), images, notes


def image_from(block: dict[str, Any]) -> tuple[Image | None, str | None]:
    """An inline base64 image, or a visible note saying why it is not shown."""
    source = block.get("source") if isinstance(block.get("source"), dict) else {}
    media = _str(source.get("media_type")) or "image"
    data = source.get("data")
    if source.get("type") != "base64" or not isinstance(data, str):
        where = _str(source.get("url") or source.get("path"))
        return None, f"[image not embedded: {where}]" if where else "[image not embedded: no inline data]"
    if len(data) > MAX_IMAGE_BASE64:
        size = len(data) * 3 / 4 / (1024 * 1024)
        return None, f"[{media} image of {size:.1f} MB left out: over the {MAX_IMAGE_BASE64 // (1024 * 1024)} MB inline limit]"
    return Image(media, data), None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
