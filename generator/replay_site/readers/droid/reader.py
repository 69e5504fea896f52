"""Factory Droid: `~/.factory/sessions/<cwd with / as ->/<session id>.jsonl`, and beside each
`<session id>.settings.json` (the model, the autonomy mode, the session's token totals).
The transcripts Droid's hooks are given (`transcript_path`) lie under
`~/.factory/projects/<slug>/`, read the same way; a session found in both is read once, from
its longest copy. No variable moves ~/.factory.

Droid is closed source; the layout, the settings file and how subagent sessions are told
apart rest on third-party descriptions (see lines.py): a session a `Task` call started is a
session file of its own in the same folder, whose title begins `# Task Tool Invocation` and
names its `Subagent type:`. agent-sessions links it to the parent's Task call of that type
made shortly before it started; so does this reader: to the session in its folder that
started last before it, and there to the latest Task call of its type made before it began.

Tokens: the settings file's `tokenUsage` is the session's running total (input without
cache, output, cache creation and reads, thinking), rewritten after each response: it is
taken once, as one step of the session, never added to anything. tokscale counts
`thinkingTokens` apart from `outputTokens`; they are billed as output and shown as reasoning.
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from replay_site.model import Session, Step, Usage
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.droid.lines import LINE_KINDS, Builder, subagent_type
from replay_site.readers.fields import count, first_request, mapping, string, title_from_prompt, user_prompts
from replay_site.readers.files import Head, plain_name
from replay_site.readers.jsonl import iter_objects, kind_of, load_json
from replay_site.readers.timestamps import utc_time

SETTINGS_SUFFIX = ".settings.json"


def is_droid_header(first: dict[str, Any] | None) -> bool:
    """`session_start` with the session's id and one of the fields only Droid writes there."""
    return (isinstance(first, dict) and kind_of(first) == "session_start" and isinstance(first.get("id"), str)
            and "event_type" not in first and any(isinstance(first.get(key), str) for key in ("cwd", "sessionTitle", "owner")))


def settings_of(path: Path) -> Path:
    return path.with_name(plain_name(path).stem + SETTINGS_SUFFIX)


class DroidReader(FileReader):
    name = "droid"
    label = "Factory Droid"
    env_vars = ("HOME",)

    def default_dirs(self) -> list[Path]:
        """~/.factory whole: its sessions/ and projects/ can hold copies of one session, which
        only a walk of both together can tell (group)."""
        return [Path.home() / ".factory"]

    def detect(self, path: Path, head: Head) -> dict[str, Any] | None:
        if plain_name(path).suffix != ".jsonl" and not head.named:
            return None
        objects = head.objects(8)
        if not objects or not is_droid_header(objects[0]):
            return None
        first = objects[0]
        started = next((entry.get("timestamp") for entry in objects[1:] if isinstance(entry.get("timestamp"), str)), None)
        return {"id": first["id"], "subagent": subagent_type(string(first.get("title")) or string(first.get("sessionTitle"))),
                "started": utc_time(started)}

    def group(self, found: dict[Path, dict[str, Any]], root: Path) -> Iterator[SessionSource]:
        """Each user session with the subagent sessions it started and every settings file.
        Copies of one session (the same id under sessions/ and projects/) go with the longest,
        which is read; the others are named in a warning."""
        copies: dict[str, list[Path]] = {}
        for path in sorted(found):
            copies.setdefault(found[path]["id"], []).append(path)
        extra: dict[Path, list[Path]] = {}
        for paths in copies.values():
            kept = max(paths, key=_size)
            extra[kept] = [path for path in paths if path != kept]
        found = {path: found[path] for path in extra}
        children: dict[Path, list[Path]] = {path: [] for path, said in found.items() if said["subagent"] is None}
        for path, said in sorted(found.items()):
            if said["subagent"] is None:
                continue
            parent = _parent(said["started"], {up: found[up]["started"] for up in children if up.parent == path.parent})
            if parent is None:
                children.setdefault(path, [])  # a subagent whose session is not here: read on its own
            else:
                children[parent].append(path)
        for main, members in sorted(children.items()):
            files = [main, *members]
            duplicates = [copy for path in files for copy in extra[path]]
            related = [*members, *duplicates, *(settings for path in (*files, *duplicates) if (settings := settings_of(path)).is_file())]
            yield SessionSource(self.name, main, root, tuple(related))

    def read_sessions(self, source: SessionSource) -> list[Session]:
        main, _ = _read(source.path, source)
        read = {main.id: source.path}
        for path in source.related:
            if not path.name.endswith(SETTINGS_SUFFIX):
                child, header = _read(path, source)
                if child.id in read:
                    main.warn("warning", f"{source.label(path)} is another copy of session {child.id}; "
                                         f"read from {source.label(read[child.id])}, the longest")
                    continue
                read[child.id] = path
                _link(child, subagent_type(string(header.get("title")) or string(header.get("sessionTitle"))) or "", main)
                main.children.append(child)
        return [main]


READER = DroidReader()


def _size(path: Path) -> tuple[int, str]:
    try:
        return path.stat().st_size, str(path)
    except OSError:
        return 0, str(path)


def _parent(started: datetime | None, parents: dict[Path, datetime | None]) -> Path | None:
    """The session in the same folder that started last before `started`."""
    before = [(when, up) for up, when in parents.items() if when is not None and started is not None and when <= started]
    return max(before)[1] if before else None


def _read(path: Path, source: SessionSource) -> tuple[Session, dict[str, Any]]:
    """One file's session and its `session_start` line."""
    label = source.label(path)
    session = Session(id=plain_name(path).stem, format=READER.name, source=label)
    builder = Builder(session)
    try:
        for line, entry in iter_objects(path, session.problems, label, session.records, LINE_KINDS):
            builder.add(line, entry)
    except OSError as exc:
        session.warn("warning", f"unreadable ({exc})")
    builder.finish()
    header = builder.header
    session.id = string(header.get("id")) or session.id
    version = header.get("version")
    session.agent_version = f"session format v{version}" if isinstance(version, int) and not isinstance(version, bool) else None
    stamps = [step.timestamp for step in session.steps if step.timestamp]
    session.started_at, session.ended_at = (min(stamps), max(stamps)) if stamps else (None, None)
    named = string(header.get("sessionTitle")) or string(header.get("title"))
    # Droid's title is "New Session" until it names the session after the first message.
    if subagent_type(named) is None and named and named.strip() != "New Session":
        session.title = title_from_prompt(named) or named.strip()
    settings = settings_of(path)
    if settings.is_file():
        _settings(session, load_json(settings, session.problems, source.label(settings)) or {})
    session.title = session.title or first_request(user_prompts(session.steps)) or session.id
    session.number_steps()
    return session, header


def _settings(session: Session, settings: dict[str, Any]) -> None:
    """The model every response of the session used, and its token totals as one step."""
    model = string(settings.get("model"))
    for step in session.steps:
        if step.kind == "assistant":
            step.model = step.model or model
    tokens = mapping(settings.get("tokenUsage"))
    if not tokens:
        return
    thinking = count(tokens.get("thinkingTokens"))
    usage = Usage(input=count(tokens.get("inputTokens")), output=count(tokens.get("outputTokens")) + thinking,
                  cache_read=count(tokens.get("cacheReadTokens")), cache_write_5m=count(tokens.get("cacheCreationTokens")),
                  reasoning=thinking)
    session.steps.append(Step("event", title=f"Tokens of the whole session: {model or 'model not named'}", model=model,
                              usage=usage, collapsed=True, timestamp=session.ended_at))


def _link(child: Session, wanted: str, main: Session) -> None:
    """The child under the main session, linked to the latest Task call of its type made before it began."""
    child.parent_id = main.id
    best = None
    for step in main.steps:
        for call in step.tool_calls:
            arguments = call.arguments if isinstance(call.arguments, dict) else {}
            if (call.name == "Task" and call.child_session_id is None and string(arguments.get("subagent_type")) in (wanted, None)
                    and (child.started_at is None or step.timestamp is None or step.timestamp <= child.started_at)):
                best = call
    if best is not None:
        best.child_session_id = child.id
        best.missing_result = False
        described = mapping(best.arguments).get("description")
        child.title = described if isinstance(described, str) and described else child.title
