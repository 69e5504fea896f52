"""Claude Code's prompt history, `history.jsonl` beside `projects/`: one line per prompt typed,
`{"display", "pastedContents", "timestamp" (ms since the epoch), "project" (the cwd),
"sessionId" (newer versions)}`. Claude Code deletes a transcript after `cleanupPeriodDays`
but keeps these lines; a session whose transcript is gone and was never archived is shown
from them: its prompts and their times, marked as prompts only.

`rescue` writes each such session's lines, as they are in history.jsonl, to a file of its own
(rewritten only when they change, so the build cache sees an unchanged session as one) and
gives it out as a source; `read_prompts` reads that file into a session of user steps.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import orjson

from replay_site.model import Detail, Problem, Session, Step, no_records
from replay_site.readers import SessionSource
from replay_site.readers.fields import first_request, mapping, string
from replay_site.readers.jsonl import LineKinds, iter_objects
from replay_site.readers.timestamps import utc_time

HISTORY = "history.jsonl"
PROMPT_LINES = LineKinds(name=lambda obj: "history prompt")
_NOT_SLUG = re.compile(r"[^A-Za-z0-9]")
_SESSION_ID = re.compile(r"^[\w-]{1,100}$")


def project_folder(project: str) -> str:
    """The folder Claude Code names after a cwd below projects/ (every other character a dash)."""
    return _NOT_SLUG.sub("-", project)


def rescue(roots: list[Path], projects_folders: list[Path], known: set[str], folder: Path,
           problems: list[Problem]) -> list[SessionSource]:
    """A source for each session history.jsonl names whose id is not in `known` (its log is
    neither on disk nor archived), for the configurations whose projects folder a root is
    (every project) or holds (that project alone); their files are written below `folder`."""
    sources = []
    for projects in (projects.resolve() for projects in projects_folders):
        wanted = {root.name for root in roots if root.parent == projects}
        if projects not in roots and not wanted:
            continue
        history = projects.parent / HISTORY
        if not history.is_file():
            continue
        lines: dict[str, list[bytes]] = {}
        places: dict[str, str] = {}
        for _, obj in iter_objects(history, problems, str(history)):
            session_id, project = string(obj.get("sessionId")), string(obj.get("project"))
            if not session_id or not _SESSION_ID.match(session_id) or session_id in known:
                continue  # an older version's line names no session: it cannot be placed
            place = places.setdefault(session_id, project_folder(project or "") or "unknown-project")
            if projects in roots or place in wanted:
                lines.setdefault(session_id, []).append(orjson.dumps(obj, option=orjson.OPT_SORT_KEYS) + b"\n")
        for session_id in sorted(lines):
            target = folder / places[session_id] / f"{session_id}.jsonl"
            _write_if_changed(target, b"".join(lines[session_id]))
            sources.append(SessionSource("claude", target, folder, prompts_only=True))
    return sources


def read_prompts(source: SessionSource) -> Session:
    """The session of a rescued source: a user step per prompt, at its time, its pasted texts
    beside it; no reply, no tool call, no cost (the transcript that had them is gone)."""
    problems: list[Problem] = []
    records = no_records()
    steps, cwd = [], None
    for _, obj in iter_objects(source.path, problems, source.rel, records, PROMPT_LINES):
        cwd = cwd or string(obj.get("project"))
        steps.append(Step("user", timestamp=utc_time(obj.get("timestamp")), text=string(obj.get("display")) or "",
                          details=_pasted(mapping(obj.get("pastedContents")))))
    steps.sort(key=lambda step: (step.timestamp is None, step.timestamp.isoformat() if step.timestamp else ""))
    times = [step.timestamp for step in steps if step.timestamp]
    session = Session(id=source.path.stem, format="claude", source=source.rel, cwd=cwd, steps=steps,
                      started_at=min(times, default=None), ended_at=max(times, default=None),
                      project=source.path.parent.name, problems=problems, records=records, prompts_only=True)
    session.title = first_request(step.text for step in steps) or session.id
    session.number_steps()
    return session


def _pasted(contents: dict[str, Any]) -> list[Detail]:
    """What was pasted with a prompt: its text when history.jsonl kept it (short pastes),
    else a line saying it did not (long pastes and images are kept elsewhere, by hash)."""
    details = []
    for key in sorted(contents, key=lambda key: (len(key), key)):
        item = mapping(contents[key])
        kind = string(item.get("type")) or "content"
        text = string(item.get("content"))
        details.append(Detail(f"Pasted {kind} #{key}", text if text is not None else "(not kept in history.jsonl)"))
    return details


def _write_if_changed(target: Path, data: bytes) -> None:
    """`target` holding `data`, private, written (at once) only when it holds other bytes."""
    try:
        if target.read_bytes() == data:
            return
    except OSError:
        pass
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = target.with_name(f".tmp-{target.name}")
    with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as stream:
        stream.write(data)
    os.replace(temporary, target)
