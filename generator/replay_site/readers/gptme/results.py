"""What a gptme `system` message is: injected context, or a tool's result (and did it fail).

gptme has no tool role and no is_error flag: results are plain `system`
messages whose wording comes from each tool (tools/shell.py, save.py,
patch.py, python.py, base.py at gptme d27f98d). We classify by that wording.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# Prefixes of context gptme injects (system prompt parts, hooks). The first
# column is also matched on messages without `hide`/`pinned`: older versions
# did not always set them, and a few hooks (cwd change) never do.
CONTEXT_PREFIXES = (
    ("You are gptme", "System prompt"),
    ("# System Prompt Cache Boundary", "System prompt cache boundary"),
    ("## System Information", "System information"),
    ("## Current Date", "Current date"),
    ("## Selected files", "Selected files"),
    ("# Relevant Lessons", "Relevant lessons"),
    ("# Relevant lessons", "Relevant lessons"),
    ("<workspace-agents-warning>", "Other agents in the workspace"),
    ("<budget:", "Token budget"),
    ("<system_info>", "System notice"),
    ("<system_warning>", "System warning"),
    ("<system-reminder>", "System reminder"),
)
# The user-role nudge gptme's autonomous mode sends when a reply had no tool call.
AUTO_REPLY = "<system>No tool call detected"
DECLINED = "Execution declined by user"


def context_title(message: dict[str, Any], content: str) -> str | None:
    """A title when this system message is injected context, else None (it is a tool result)."""
    text = content.lstrip()
    for prefix, title in CONTEXT_PREFIXES:
        if text.startswith(prefix):
            return title
    if message.get("hide") or message.get("pinned"):
        first = next((line.strip("# ").strip() for line in text.splitlines() if line.strip()), "")
        return (first[:60] + "…" if len(first) > 60 else first) or "Context"
    return None


@dataclass
class ResultInfo:
    """What a result message says about its call: which tool, a key to match it by, failure."""

    tool: str | None = None
    key: str | None = None  # the command / path the message names, for pairing by content
    is_error: bool = False
    exit_code: int | None = None


_SHELL_HEADER = r"^(?:Ran (?:allowlisted )?command|Command timed out[^:\n]*|Command interrupted):"
# The command sits in backticks on the header line, or (multi-line) in a ```bash block below it.
_SHELL = re.compile(_SHELL_HEADER + r"[ \t]*`(.*)`[ \t]*$", re.MULTILINE)
_SHELL_BLOCK = re.compile(_SHELL_HEADER + r"[ \t]*\n```\w*\n(.*?)\n```", re.DOTALL)
_SAVED = re.compile(r"^Saved to (.+?)(?: \(overwritten\))?(?: \(created missing folder\))?$", re.MULTILINE)
_APPENDED = re.compile(r"^Appended to (.+?)$", re.MULTILINE)
_PATCHED = re.compile(r"^Patch successfully applied to `(.+?)`")
_TOOL_ERROR = re.compile(r"^Error executing tool '([\w.]+)'")
_RETURN_CODE = re.compile(r"^(?:Return code: |Process interrupted \(return code: )(-?\d+)", re.MULTILINE)
_FENCED = re.compile(r"^(`{3,})[^\n]*\n.*?^\1[ \t]*$", re.DOTALL | re.MULTILINE)
_ERROR_PREFIXES = (
    "Error during execution", "Error:", "Error executing tool", "Command timed out",
    "Command interrupted", "Save aborted", "Append aborted", DECLINED,
)


def classify(content: str, metadata: Any) -> ResultInfo:
    text = content.lstrip()
    info = ResultInfo()
    if match := _SHELL.match(text) or _SHELL_BLOCK.match(text):
        info.tool, info.key = "shell", match.group(1)
    elif match := _SAVED.match(text):
        info.tool, info.key = "save", match.group(1)
    elif match := _APPENDED.match(text):
        info.tool, info.key = "append", match.group(1)
    elif match := _PATCHED.match(text):
        info.tool, info.key = "patch", match.group(1)
    elif text.startswith("Executed code block"):
        info.tool = "ipython"
    elif text.startswith("Task complete"):
        info.tool = "complete"
    elif match := _TOOL_ERROR.match(text):
        info.tool = match.group(1)
    elif text.startswith("Error during execution: Patch failed"):
        info.tool = "patch"
    elif text.startswith(("Save aborted", "Append aborted")):
        info.tool = text.split()[0].lower()
    if info.tool is None and isinstance(metadata, dict) and isinstance(metadata.get("tool"), str):
        info.tool = metadata["tool"]  # native mode names the tool on its results

    # Status lines come after the output blocks: look outside them, so a program
    # that prints "Return code: 1" on stdout is not taken for a failure.
    outside = _FENCED.sub("", text)
    if match := _RETURN_CODE.search(outside):
        info.exit_code = int(match.group(1))
    info.is_error = (
        text.startswith(_ERROR_PREFIXES)
        or "Exception during execution" in outside
        or bool(info.exit_code)
    )
    return info


def command_matches(command: str | None, key: str | None) -> bool:
    """Does a shell result's header name this command? gptme abbreviates long ones as
    `<first 80 chars of line 1>... (N lines)`."""
    if command is None or key is None:
        return False
    command, key = command.strip(), key.strip()
    if command == key:
        return True
    match = re.fullmatch(r"(.*)\.\.\. \(\d+ lines?\)", key, re.DOTALL)
    return bool(match) and command.startswith(match.group(1))


def path_matches(path: str | None, key: str | None) -> bool:
    """Results name the path as typed (save/append) or absolute (patch)."""
    if not path or not key:
        return False
    path, key = path.strip().removeprefix("./"), key.strip()
    return key == path or key.endswith("/" + path) or path.endswith("/" + key)
