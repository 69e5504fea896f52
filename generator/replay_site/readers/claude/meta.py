"""What a Claude Code transcript says about its session rather than in it: titles, pull
requests, the agent's name. Claude Code 2.1.x re-appends these "last wins" records every
~32 KiB it writes, so the last of each kind counts (a pull request is listed once, first
link first). Title precedence is Claude Code's own: the user's `custom-title`, then the
model's `ai-title`, then a `summary` naming one of the session's lines (often written into
another session's file of the same project), then the first prompt.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from replay_site.caches import cache_folder, replace_file_at_once
from replay_site.model import Fact, PullRequest, Session
from replay_site.readers.fields import string
from replay_site.readers.files import open_log, plain_name

# Records read here; `agent-color` is a display colour for Claude Code's own list, known and not shown.
META_KINDS = frozenset({"summary", "custom-title", "ai-title", "pr-link", "agent-name", "agent-color"})


class SessionMeta:
    """The metadata records of one transcript, as they come in file order."""

    def __init__(self) -> None:
        self.summaries: dict[str, str] = {}
        self.custom_title = ""
        self.ai_title = ""
        self.agent_name = ""
        self.pull_requests: dict[str, PullRequest] = {}

    def take(self, kind: str | None, obj: dict[str, Any]) -> None:
        if kind == "summary":
            if isinstance(obj.get("leafUuid"), str) and isinstance(obj.get("summary"), str):
                self.summaries[obj["leafUuid"]] = obj["summary"]
        elif kind == "custom-title":
            self.custom_title = string(obj.get("customTitle")) or self.custom_title
        elif kind == "ai-title":
            self.ai_title = string(obj.get("aiTitle")) or self.ai_title
        elif kind == "agent-name":
            self.agent_name = string(obj.get("agentName")) or self.agent_name
        elif kind == "pr-link":
            url = string(obj.get("prUrl"))
            number = obj.get("prNumber")
            if url and url not in self.pull_requests:
                self.pull_requests[url] = PullRequest(
                    url, number if isinstance(number, int) and not isinstance(number, bool) else None,
                    string(obj.get("prRepository")) or string(obj.get("repository")))

    def apply(self, session: Session, path: Path, uuids: set[str], first_prompt: str) -> None:
        """Title, agent name and pull requests onto `session` (whose lines have `uuids`)."""
        leaf_titles = {**_project_summaries(path.parent), **self.summaries}
        owned = [title for leaf, title in leaf_titles.items() if leaf in uuids]
        session.title = self.custom_title or self.ai_title or (owned[-1] if owned else "") or first_prompt or session.id
        if self.agent_name:
            session.facts.append(Fact("Agent name", self.agent_name))
        session.pull_requests = list(self.pull_requests.values())


def summary_leaves(folder: Path) -> Iterable[str]:
    """The lines (uuids) that summary lines in the project folder give a title."""
    return _project_summaries(folder).keys()


_SUMMARY_MARKS = (b'"type":"summary"', b'"type": "summary"')


def _mentions(handle, marks: tuple[bytes, ...], block: int = 1 << 20) -> bool:
    """Whether the file holds any of `marks`, read in blocks (most files hold none: one
    search per block costs far less than going through their lines)."""
    overlap = max(map(len, marks)) - 1
    tail = b""
    while data := handle.read(block):
        window = tail + data
        if any(mark in window for mark in marks):
            return True
        tail = window[-overlap:]
    return False


# Each log's summary lines by its path, kept with the log's size, mtime and inode: a rebuild
# after one appended turn read every log of that session's project folder again for them
# (the medium benchmark corpus: ~20 logs, 6 MB), where only the changed log needs it. One
# memo per project folder, so that reading one folder reads and writes only its own.
def _memo_name(folder: Path) -> str:
    return f"claude-summaries-{hashlib.sha256(os.fsencode(folder)).hexdigest()[:20]}.json"


@lru_cache(maxsize=64)
def _project_summaries(folder: Path) -> dict[str, str]:
    """Every summary line in a project folder, by leafUuid: Claude Code often writes a session's
    title into another session's file. Only lines mentioning "summary" are parsed, so this is
    cheap; a log whose stat is the one remembered (_memo_name) is not read at all."""
    local = isinstance(folder, Path)  # a store's objects (a UPath's) have no inode to remember them by
    memo = _read_memo(folder) if local else {}
    found: dict[str, str] = {}
    here: dict[str, Any] = {}
    for path in sorted(folder.glob("*.jsonl*")):
        if plain_name(path).suffix != ".jsonl":
            continue
        try:
            state = None
            if local:
                status = os.stat(path)
                state = [status.st_size, status.st_mtime_ns, status.st_ino]
            known = memo.get(str(path))
            remembered = isinstance(known, list) and len(known) == 2 and known[0] == state and isinstance(known[1], dict)
            summaries = known[1] if remembered else _summaries_in(path)
        except OSError:
            continue
        if local:
            here[str(path)] = [state, summaries]
        found.update(summaries)
    if local and memo != here:
        replace_file_at_once(cache_folder() / _memo_name(folder), [orjson.dumps(here)])
    return found


def _read_memo(folder: Path) -> dict[str, Any]:
    try:
        memo = orjson.loads((cache_folder() / _memo_name(folder)).read_bytes())
    except (OSError, ValueError):
        return {}
    return memo if isinstance(memo, dict) else {}


def _summaries_in(path: Path) -> dict[str, str]:
    """The summary lines of one log, by leafUuid (the last for each)."""
    found: dict[str, str] = {}
    with open_log(path) as handle:
        if not _mentions(handle, _SUMMARY_MARKS):
            return found
    with open_log(path) as handle:  # a decompressed stream cannot seek back
        for raw in handle:
            if not any(mark in raw for mark in _SUMMARY_MARKS):
                continue
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if isinstance(obj, dict) and isinstance(obj.get("leafUuid"), str) and isinstance(obj.get("summary"), str):
                found[obj["leafUuid"]] = obj["summary"]
    return found
