"""Tool calls inside gptme assistant text, and the file edits they make.

gptme stores no structured list of calls: the assistant's markdown *is* the
record, and gptme re-parses it to execute (gptme/codeblock.py, tools/base.py).
We mirror those parsers closely enough to find the same calls:
fenced blocks whose info string names a tool, native `@tool(call_id): {json}`
lines, `<tool-use><tool>..</tool></tool-use>` xml and its `<function_calls><invoke>` variant, and
(before 2024) ```bash blocks.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

import orjson

from replay_site.diffs import change_from_texts, diff_texts
from replay_site.model import FileChange, ToolCall

# Fence info-string first words that gptme executes (the tools' `block_types`
# at gptme d27f98d). `python`, `bash`, `stdout`... are prose, never calls.
BLOCK_TOOLS = {
    "shell": "shell", "ipython": "ipython", "py": "ipython", "save": "save", "append": "append",
    "patch": "patch", "tmux": "tmux", "gh": "gh", "complete": "complete", "read": "read",
    "todo": "todo", "choice": "choice", "clarify": "clarify", "elicit": "elicit", "form": "form",
    "mcp": "mcp", "morph": "morph", "progress": "progress", "restart": "restart", "vent": "vent",
    "patch_many": "patch_many", "patch_anchored": "patch_anchored",
    "view_anchored": "view_anchored", "hashline_edit": "hashline_edit",
}
# Tools whose whole info string after the name is one path argument.
PATH_TOOLS = {"save", "append", "patch"}
# Native-call JSON keys that hold the call's main body, shown as highlighted code.
BODY_KEYS = {"shell": "command", "ipython": "code", "save": "content", "append": "content", "patch": "patch"}

_FENCE = re.compile(r"^(`{3,})(.*)$")
# gptme's own `toolcall_re` (tools/base.py), minus DOTALL: the JSON end is found by brace counting.
_NATIVE = re.compile(r"^@([\w.]+)\(([\w\-:.]+)\):[ \t]*(?=\{)", re.MULTILINE)
_XML = re.compile(r"<tool-use>\s*<([\w.-]+)((?:\s+[\w-]+=\"[^\"]*\")*)\s*>(.*?)</\1>\s*</tool-use>", re.DOTALL)
# The Anthropic-style variant gptme also parses (Haiku writes it): one <invoke> per call,
# its arguments as <parameter name=…> elements.
_INVOKE = re.compile(r"<invoke\s+name=\"([\w.-]+)\"\s*>(.*?)</invoke>", re.DOTALL)
_PARAMETER = re.compile(r"<parameter\s+name=\"([\w.-]+)\"\s*>(.*?)</parameter>", re.DOTALL)
_FUNCTION_CALLS = re.compile(r"<function_calls>(.*?)</function_calls>", re.DOTALL)
# Before 2024 gptme ran ```bash / ```sh blocks as shell commands (the shell tool's block types
# were bash and sh then); in later logs those blocks are prose.
LEGACY_SHELL_BLOCKS = ("bash", "sh")
_THINK = re.compile(r"^\s*<(think|thinking)>(.*?)</\1>\s*", re.DOTALL)


@dataclass
class ParsedCall:
    """One call as written in the text, before pairing with its result."""

    tool: str
    start: int
    end: int  # character span in the content, cut from the prose shown
    args: str = ""  # info-string arguments (markdown/xml)
    body: str | None = None  # fenced/xml body
    kwargs: dict[str, Any] | None = None  # native JSON arguments
    raw_json: str | None = None  # native arguments that were not valid JSON
    call_id: str | None = None

    @property
    def path(self) -> str | None:
        if self.kwargs is not None:
            value = self.kwargs.get("path")
            return value if isinstance(value, str) else None
        return (self.args.strip() or None) if self.tool in PATH_TOOLS else None

    @property
    def code(self) -> str | None:
        if self.kwargs is not None:
            value = self.kwargs.get(BODY_KEYS.get(self.tool, ""))
            return value if isinstance(value, str) else None
        return self.body


def split_thinking(text: str) -> tuple[str, str]:
    """(thinking, rest): a leading <think> block is reasoning, and gptme ignores calls inside it."""
    match = _THINK.match(text)
    if not match:
        return "", text
    return match.group(2).strip(), text[match.end():]


def fences(text: str) -> list[tuple[str, str, int, int]]:
    """(info string, body, start, end) of each closed top-level fenced block.

    A fence with an info string inside a block opens a nested block (a `save
    README.md` whose body holds ```python examples); a bare fence closes the
    innermost one. An unclosed block is not a call (gptme would not run it).
    """
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    found = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i].rstrip("\r\n"))
        if not match or "`" in match.group(2):
            i += 1
            continue
        ticks, info, depth, j = len(match.group(1)), match.group(2).strip(), 1, i + 1
        while j < len(lines):
            inner = _FENCE.match(lines[j].rstrip("\r\n"))
            if inner and inner.group(2).strip():
                depth += 1
            elif inner and (depth > 1 or len(inner.group(1)) >= ticks):
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= len(lines):
            i += 1
            continue
        body = "".join(lines[i + 1:j])
        found.append((info, body[:-1] if body.endswith("\n") else body, offsets[i], offsets[j + 1]))
        i = j + 1
    return found


def _json_end(text: str, start: int) -> int | None:
    """Index after the JSON object starting at `start` (brace counting, strings respected)."""
    depth, in_string, escape = 0, False, False
    for index in range(start, len(text)):
        char = text[index]
        if escape:
            escape = False
        elif char == "\\":
            escape = in_string
        elif char == '"':
            in_string = not in_string
        elif not in_string and char == "{":
            depth += 1
        elif not in_string and char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def parse_calls(text: str, legacy_shell: bool = False) -> list[ParsedCall]:
    """Every tool call in an assistant message (thinking already removed), in text order.
    `legacy_shell`: the message predates 2024, when ```bash blocks were shell calls."""
    calls: list[ParsedCall] = []
    blocks = fences(text)
    for info, body, start, end in blocks:
        word, _, rest = info.partition(" ")
        if word in BLOCK_TOOLS:
            calls.append(ParsedCall(BLOCK_TOOLS[word], start, end, args=rest.strip(), body=body))
        elif legacy_shell and word in LEGACY_SHELL_BLOCKS:
            calls.append(ParsedCall("shell", start, end, body=body))

    def inside_block(pos: int) -> bool:
        return any(start <= pos < end for _, _, start, end in blocks)

    for match in _NATIVE.finditer(text):
        if inside_block(match.start()):
            continue  # an example in a code block, as gptme skips it
        json_end = _json_end(text, match.end())
        if json_end is None:
            continue  # cut off mid-stream: gptme does not run it either
        raw = text[match.end():json_end]
        try:
            kwargs = orjson.loads(raw)
        except orjson.JSONDecodeError:
            kwargs = None  # gptme would json_repair it; we keep the raw text visible
        call = ParsedCall(match.group(1), match.start(), json_end, call_id=match.group(2))
        if isinstance(kwargs, dict):
            call.kwargs = kwargs
        else:
            call.raw_json = raw
        calls.append(call)

    if "<tool-use>" in text:
        for match in _XML.finditer(text):
            if inside_block(match.start()):
                continue
            attrs = " ".join(html.unescape(v) for v in re.findall(r'="([^"]*)"', match.group(2)))
            body = html.unescape(match.group(3)).strip("\n")
            calls.append(ParsedCall(match.group(1), match.start(), match.end(), args=attrs, body=body))
    if "<function_calls>" in text:
        for group in _FUNCTION_CALLS.finditer(text):
            if inside_block(group.start()):
                continue
            invokes = list(_INVOKE.finditer(group.group(1)))
            for index, invoke in enumerate(invokes):
                kwargs = {name: html.unescape(value).strip("\n") for name, value in _PARAMETER.findall(invoke.group(2))}
                # The whole <function_calls> element is cut from the prose with its first call.
                start, end = (group.start(), group.end()) if index == 0 else (group.end(), group.end())
                calls.append(ParsedCall(invoke.group(1), start, end, kwargs=kwargs))
    calls.sort(key=lambda call: call.start)
    return calls


def strip_calls(text: str, calls: list[ParsedCall]) -> str:
    """The prose around the calls: each call is shown once, as a ToolCall, not twice."""
    kept, position = [], 0
    for call in calls:
        kept.append(text[position:call.start])
        position = max(position, call.end)
    kept.append(text[position:])
    return re.sub(r"\n{3,}", "\n\n", "".join(kept)).strip()


def language_for(tool: str, path: str | None) -> str | None:
    """The highlighting language of a call's body: bash for shell, python for ipython, else the file's."""
    if tool == "shell":
        return "bash"
    if tool == "ipython":
        return "python"
    if tool in ("save", "append") and path:
        from pygments.lexers import get_lexer_for_filename
        from pygments.util import ClassNotFound

        try:
            return get_lexer_for_filename(path).aliases[0]
        except (ClassNotFound, IndexError):
            return None
    return None


def to_tool_call(parsed: ParsedCall) -> ToolCall:
    call = ToolCall(name=parsed.tool, id=parsed.call_id)
    path = parsed.path
    if parsed.kwargs is not None:
        body_key = BODY_KEYS.get(parsed.tool)
        rest = {k: v for k, v in parsed.kwargs.items() if k != body_key or not isinstance(v, str)}
        call.arguments = rest or None
    elif parsed.raw_json is not None:
        call.arguments = parsed.raw_json
    elif path is not None:
        call.arguments = {"path": path}
    elif parsed.args:
        call.arguments = parsed.args
    call.code = parsed.code if parsed.code and parsed.code.strip() else None  # ```complete``` has no body
    call.language = language_for(parsed.tool, path)
    return call


def patch_chunks(patch: str) -> list[tuple[str, str]]:
    """(original, updated) pairs of a `<<<<<<< ORIGINAL / ======= / >>>>>>> UPDATED` patch."""
    chunks = []
    for part in re.split(r"(?=^<<<<<<< ORIGINAL[ \t]*$)", patch, flags=re.MULTILINE):
        match = re.match(
            r"<<<<<<< ORIGINAL[ \t]*\n(.*?)^=======[ \t]*\n(.*?)^>>>>>>> UPDATED", part, re.DOTALL | re.MULTILINE
        )
        if match:
            chunks.append((match.group(1), match.group(2)))
    return chunks


def file_change(parsed: ParsedCall, output: str, known: dict[str, str]) -> FileChange | None:
    """The edit a save/append/patch call made; `known` holds file texts seen earlier in the
    session so later diffs get real context and line numbers. Updated in place."""
    path, code = parsed.path, parsed.code
    if parsed.tool not in PATH_TOOLS or not path or code is None:
        return None
    old = known.get(path)
    if parsed.tool == "save":
        code = code if code.endswith("\n") else code + "\n"  # gptme's save ends files with a newline
        known[path] = code
        change = change_from_texts(path, old, code)
        if old is None and "(overwritten)" in output:
            change.kind = "modify"  # the old text is not in the log: only the new lines can be shown
        return change
    if parsed.tool == "append":
        # gptme's append ends the content with a newline, and adds one before it when the file lacked it.
        added = code if code.endswith("\n") else code + "\n"
        if old is None:
            return FileChange(path, "modify", diff_texts("", added))
        new = old + ("\n" if old and not old.endswith("\n") else "") + added
        known[path] = new
        return FileChange(path, "modify", diff_texts(old, new))
    chunks = patch_chunks(code)
    if not chunks:
        return None
    if old is not None and all(original in old for original, _ in chunks):
        new = old
        for original, updated in chunks:
            new = new.replace(original, updated, 1)
        known[path] = new
        return FileChange(path, "modify", diff_texts(old, new))
    # Without the file's text the hunks are relative to each chunk: line numbers are not the file's.
    return FileChange(path, "modify", "".join(diff_texts(original, updated) for original, updated in chunks))
