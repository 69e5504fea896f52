"""Codex tool outputs: one string whose layout depends on version and tool.

Response items carry no is_error flag, so success has to be read out of the text
(JSON-in-a-string metadata, unified-exec headers, `Exit code:` headers, bare
error sentences). Each variant is listed in FORMATS.md (c).
"""
from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from replay_site.model import Image

_EXITED = re.compile(r"^Process exited with code (-?\d+)\s*$", re.M)
_RUNNING = re.compile(r"^Process running with session ID (\d+)\s*$", re.M)
_EXIT_CODE = re.compile(r"^Exit code: (-?\d+)\s*$", re.M)
_WALL = re.compile(r"^Wall time: ([\d.]+) seconds?\s*$", re.M)
_HEADER_KEYS = ("Chunk ID:", "Wall time:", "Process exited", "Process running", "Exit code:", "Original token count:")
# A bare sentence in place of an output is how Codex reports a call that never ran or broke:
# `apply_patch verification failed: …`, `write_stdin failed: …`, `failed to parse function arguments`,
# sandbox denials, `execution error: …`. Plain successes ("Plan updated", "ok") never match.
_BARE_ERROR = re.compile(
    r"^(?:[\w./ -]{0,40}\b(?:failed|error|denied|rejected|not allowed|timed out|aborted)\b|error:|Error\b)",
    re.I,
)


@dataclass
class OutputInfo:
    text: str = ""
    exit_code: int | None = None
    is_error: bool = False
    duration_s: float | None = None
    running_session: str | None = None  # unified exec: the process outlives this call
    images: list[Image] = field(default_factory=list)


def classify(output: Any, flagged_error: bool = False) -> OutputInfo:
    """Text, exit code, failure and duration of one `*_call_output.output` (str | object | list)."""
    if isinstance(output, list):
        info = _from_parts(output)
    elif isinstance(output, dict):
        info = _from_object(output)
    else:
        info = _from_string("" if output is None else str(output))
    if flagged_error:
        info.is_error = True
    return info


# Where a content item keeps its text: `text` (input_text, output_text, inputText), or the
# item's own type as the key (`{"type": "output_text", "output_text": …}`, some writers).
_TEXT_KEYS = ("text", "output_text", "input_text")


def _from_parts(parts: list[Any]) -> OutputInfo:
    info = OutputInfo()
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, dict):
            continue
        text = next((part[key] for key in _TEXT_KEYS if isinstance(part.get(key), str)), None)
        if text is not None:
            texts.append(text)
        url = part.get("image_url")
        if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
            media, _, data = url[5:].partition(";base64,")
            info.images.append(Image(media or "image/png", data))
    info.text = "\n".join(texts)
    return info


def _from_object(obj: dict[str, Any]) -> OutputInfo:
    """An output written as one object: its body under `content`, `content_items`, `output`
    or `text` (a list of items, a string, or a nested object); else the object itself, shown
    as JSON rather than as no output."""
    key = next((key for key in ("content", "content_items", "output", "text") if obj.get(key) not in (None, "", [])), None)
    content = obj.get(key) if key else None
    if isinstance(content, list):
        info = _from_parts(content)
    elif isinstance(content, dict):
        info = _from_object(content)
    elif content is not None:
        info = _from_string(str(content))
    else:
        rest = {k: v for k, v in obj.items() if k not in ("success", "error", "content", "content_items", "output", "text")
                and v is not None}
        info = OutputInfo(text=json.dumps(rest, ensure_ascii=False, sort_keys=True) if rest else "")
    error = obj.get("error")
    if isinstance(error, str) and error and error not in info.text:
        info.text = f"{info.text}\n{error}".strip()
    if obj.get("success") is False:
        info.is_error = True
    return info


def _from_string(text: str) -> OutputInfo:
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError:
            data = None
        if isinstance(data, dict) and "output" in data and isinstance(data.get("metadata"), dict):
            meta = data["metadata"]
            code = meta.get("exit_code")
            code = code if isinstance(code, int) and not isinstance(code, bool) else None
            duration = meta.get("duration_seconds")
            return OutputInfo(
                text=str(data.get("output") or ""),
                exit_code=code,
                is_error=code not in (None, 0),
                duration_s=float(duration) if isinstance(duration, (int, float)) else None,
            )
    head, body = _split_header(text)
    if head is None:
        first = text.strip().splitlines()[0] if text.strip() else ""
        return OutputInfo(text=text, is_error=bool(_BARE_ERROR.match(first)))
    info = OutputInfo(text=body)
    match = _EXITED.search(head) or _EXIT_CODE.search(head)
    if match:
        info.exit_code = int(match.group(1))
        info.is_error = info.exit_code != 0
    running = _RUNNING.search(head)
    if running:
        info.running_session = running.group(1)
    wall = _WALL.search(head)
    if wall:
        info.duration_s = float(wall.group(1))
    return info


def _split_header(text: str) -> tuple[str | None, str]:
    """(header, body) when `text` starts with the exec header lines ending in `Output:`; else (None, text)."""
    if not text.startswith(_HEADER_KEYS):
        return None, text
    marker = text.find("\nOutput:")
    if marker < 0:
        return text, ""
    body = text[marker + len("\nOutput:") :]
    return text[:marker], body[1:] if body.startswith("\n") else body


def end_exit_code(payload: dict[str, Any]) -> int | None:
    code = payload.get("exit_code")
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def end_duration(value: Any) -> float | None:
    """exec_command_end `duration`: {secs, nanos} (Rust Duration) or a number of seconds."""
    if isinstance(value, dict):
        secs, nanos = value.get("secs", 0), value.get("nanos", 0)
        if isinstance(secs, (int, float)) and isinstance(nanos, (int, float)):
            return secs + nanos / 1e9
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def command_text(command: Any) -> str | None:
    """A shell command as one line: argv `["bash","-lc",script]` shows the script itself."""
    if isinstance(command, str):
        return command
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) >= 3 and command[-2] in ("-lc", "-c") and command[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh"):
            return command[-1]
        return shlex.join(command)
    return None
