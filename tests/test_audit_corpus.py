"""Every file an agent edited or wrote in the real corpus is in its session's `files_changed`.

The expected paths are recounted here from the raw lines, independently of the readers:
- Claude Code: every `tool_use` block named Edit, MultiEdit or Write (`input.file_path`) or
  NotebookEdit (`input.notebook_path`) in an assistant message, unless its `tool_result` says
  `is_error` (a rejected or failed edit wrote nothing: the corpus has a Write the user rejected);
- Codex CLI: every patch (`*** Begin Patch`) carried by a `function_call`, `custom_tool_call` or
  `local_shell_call` response item; its `*** Add File:`, `*** Update File:`, `*** Delete File:`
  and `*** Move to:` lines name the files.
A session's `files_changed` paths may be shortened to the session's working folder, so an
expected path is found when it equals a listed path or ends with `/` + that path.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

CLAUDE_EDITS = {"Edit": "file_path", "MultiEdit": "file_path", "Write": "file_path", "NotebookEdit": "notebook_path"}
PATCH_FILE = re.compile(r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$", re.MULTILINE)
CODEX_CALLS = {"function_call", "custom_tool_call", "local_shell_call"}


def _records(log: Path):
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            yield record


def _claude_paths(log: Path) -> set[str]:
    edits, failed = {}, set()
    for record in _records(log):
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("name") in CLAUDE_EDITS:
                path = (block.get("input") or {}).get(CLAUDE_EDITS[block["name"]])
                if isinstance(path, str) and path:
                    edits[block.get("id")] = path
            elif block.get("type") == "tool_result" and block.get("is_error") is True:
                failed.add(block.get("tool_use_id"))
    return {path for call, path in edits.items() if call not in failed}


def _strings(value):
    if isinstance(value, str):
        yield value
        try:
            yield from _strings(json.loads(value))  # function_call arguments are JSON in a string
        except ValueError:
            pass
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _codex_paths(log: Path) -> set[str]:
    paths = set()
    for record in _records(log):
        payload = record.get("payload") if record.get("type") == "response_item" else record
        if isinstance(payload, dict) and payload.get("type") in CODEX_CALLS:
            for text in _strings(payload):
                if "*** Begin Patch" in text:
                    paths.update(path.strip() for path in PATCH_FILE.findall(text))
    return paths


def _listed(built_sessions: list[dict], log: Path, corpus: Path) -> set[str]:
    source = log.relative_to(corpus).as_posix()
    listed = set()
    for session in built_sessions:
        if session.get("source") == source:
            for change in session["files_changed"]:
                assert isinstance(change["added"], int) and isinstance(change["removed"], int), change
                assert change["steps"], change
                listed.add(change["path"])
    return listed


def _found(path: str, listed: set[str]) -> bool:
    return any(path == shown or path.endswith("/" + shown) for shown in listed)


@pytest.mark.parametrize("fmt, recount", [("claude", _claude_paths), ("codex", _codex_paths)])
def test_every_file_an_agent_edited_or_wrote_is_in_files_changed(built, corpus, fmt, recount):
    _, summary = built
    expected = {log: recount(log) for log in sorted((corpus / fmt).rglob("*.jsonl"))}
    expected = {log: paths for log, paths in expected.items() if paths}
    assert expected, f"the {fmt} corpus has edits to check"
    for log, paths in expected.items():
        listed = _listed(summary["sessions"], log, corpus)
        missing = sorted(path for path in paths if not _found(path, listed))
        assert not missing, f"{log.relative_to(corpus)}: {missing} not in files_changed {sorted(listed)}"
