"""What Gemini CLI and its forks (Qwen Code) share: the Gemini API's content parts and usage
counters, and the tools' edit results.

A message's content is a `PartListUnion`: a string, one part or a list of parts; a part holds
`text` (with `thought: true`, the model's reasoning), `functionCall` {id, name, args},
`functionResponse` {id, name, response: {output | error}} or `inlineData` {mimeType, data}.
Usage is the API's usageMetadata (promptTokenCount counts the cached tokens too, the thoughts
are counted apart from the candidates) or Gemini CLI's summary of it (input, output, cached,
thoughts, tool). An edit tool's `resultDisplay` is a FileDiff {fileDiff, fileName,
originalContent, newContent}."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from replay_site.diffs import change_from_texts
from replay_site.model import FileChange, Image, Usage
from replay_site.readers.fields import count, mapping, raw_json, string, text


@dataclass
class Content:
    """The parts of one message, sorted by what they are."""

    text: str = ""
    thinking: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)  # functionCall objects
    responses: list[dict[str, Any]] = field(default_factory=list)  # functionResponse objects
    images: list[Image] = field(default_factory=list)


def content(value: Any) -> Content:
    """A PartListUnion (string, part, list of parts, or Content {role, parts}) sorted into its kinds."""
    found = Content()
    if isinstance(value, dict) and isinstance(value.get("parts"), list):
        value = value["parts"]
    texts: list[str] = []
    thoughts: list[str] = []
    for part in value if isinstance(value, list) else [value]:
        if isinstance(part, str):
            texts.append(part)
            continue
        part = mapping(part)
        if isinstance(part.get("text"), str):
            (thoughts if part.get("thought") is True else texts).append(part["text"])
        elif isinstance(part.get("functionCall"), dict):
            found.calls.append(part["functionCall"])
        elif isinstance(part.get("functionResponse"), dict):
            found.responses.append(part["functionResponse"])
        elif isinstance(part.get("inlineData"), dict) and string(part["inlineData"].get("data")):
            data = part["inlineData"]
            found.images.append(Image(string(data.get("mimeType")) or "application/octet-stream", data["data"]))
        elif part:
            texts.append(f"```json\n{raw_json(part, indent=True)}\n```")
    found.text = "\n".join(texts)
    found.thinking = "\n\n".join(thoughts)
    return found


def response_output(response: dict[str, Any]) -> tuple[str | None, bool]:
    """A functionResponse's output text and whether it reports an error."""
    body = response.get("response")
    if isinstance(body, dict):
        if body.get("error") not in (None, ""):
            return text(body["error"]), True
        if "output" in body:
            return text(body["output"]), False
        if "content" in body:
            return content(body["content"]).text, False
        return raw_json(body, indent=True), False
    return (None, False) if body is None else (text(body), False)


# The shell tool's output ends with its fields, one a line ("Exit Code: 1", "Signal: (none)").
_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)


def exit_code(output: str | None) -> int | None:
    """The exit code the shell tool reports in its output, when it says one."""
    found = _EXIT_CODE.findall(output or "")
    return int(found[-1]) if found else None


def usage_of(metadata: Any) -> Usage | None:
    """Tokens of one model response: from usageMetadata (promptTokenCount, …) or Gemini CLI's
    summary ({input, output, cached, thoughts, tool}). The prompt count holds the cached tokens,
    so the uncached input is the rest; thoughts are billed as output and counted in it; the
    tool-use prompt is input counted apart."""
    metadata = mapping(metadata)
    if "promptTokenCount" in metadata or "candidatesTokenCount" in metadata:
        prompt, cached = count(metadata.get("promptTokenCount")), count(metadata.get("cachedContentTokenCount"))
        output, thoughts = count(metadata.get("candidatesTokenCount")), count(metadata.get("thoughtsTokenCount"))
        tool = count(metadata.get("toolUsePromptTokenCount"))
    else:
        prompt, cached = count(metadata.get("input")), count(metadata.get("cached"))
        output, thoughts, tool = count(metadata.get("output")), count(metadata.get("thoughts")), count(metadata.get("tool"))
    cached = min(cached, prompt)
    usage = Usage(input=prompt - cached + tool, output=output + thoughts, cache_read=cached, reasoning=thoughts)
    return usage if usage else None


def file_changes(display: Any, args: dict[str, Any]) -> list[FileChange]:
    """The edit a tool call made: its FileDiff display, else (no display: the call never ran
    or the log dropped it) nothing, since the arguments alone do not say what the file held."""
    display = mapping(display)
    diff = display.get("fileDiff")
    if not isinstance(diff, str):
        return []
    path = string(display.get("filePath")) or string(args.get("file_path")) or string(display.get("fileName")) or "?"
    original, new = display.get("originalContent"), display.get("newContent")
    if isinstance(new, str) and (original is None or isinstance(original, str)) and not display.get("truncatedForSession"):
        # the texts themselves: a diff of our own making has the same hunks without the header
        old = None if original is None or (original == "" and display.get("isNewFile") is True) else original
        return [change_from_texts(path, old, new)]
    return [FileChange(path, "add" if display.get("isNewFile") is True else "modify", diff)]
