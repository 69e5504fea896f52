"""OpenHands conversations -> Sessions.

The OpenHands CLI keeps each conversation in `$OPENHANDS_CONVERSATIONS_DIR` (default
`$OPENHANDS_PERSISTENCE_DIR/conversations`, `~/.openhands/conversations`), the agent server in
`$OH_CONVERSATIONS_PATH`: a folder named by the conversation id (hex) holding
`base_state.json` (the state: agent and model, workspace, execution status, the per-response
metrics) and `events/event-<index, 5+ digits>-<event id>.json`, one event a file. A subagent
(the task and delegate tools) is a conversation of its own in `subagents/<hex>/` inside its
parent's folder, read as the parent's child; a task call is linked to the child whose first
message is the call's prompt. Event times are the writer's naive local time, read as UTC.
The first event format (V0: `sessions/<id>/events/<n>.json`, exported trajectories) is legacy.py's.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from replay_site.model import Fact, Session
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.fields import first_request, mapping, string, user_prompts
from replay_site.readers.files import Head, families, plain_name, read_head
from replay_site.readers.openhands import legacy
from replay_site.readers.openhands.events import Builder, Event, off_branch, responses
from replay_site.readers.timestamps import utc_time

STATE = "base_state.json"
EVENT_NAME = re.compile(r"^event-(\d{5,})-[0-9a-fA-F-]{8,}\.json$")
# What only an OpenHands event file holds: its class tag and its source.
_EVENT_HEAD = re.compile(rb'"source"\s*:\s*"(?:agent|user|environment|hook)"')
_KIND = re.compile(rb'"kind"\s*:\s*"[A-Za-z]+(?:Event|Observation|Condensation|CondensationRequest)"')
_STATE_HEAD = (re.compile(rb'"agent"\s*:\s*\{'), re.compile(rb'"workspace"\s*:\s*\{'), re.compile(rb'"execution_status"\s*:'))
# How the state says the conversation stands, in the outcomes of `figures.summary`.
OUTCOMES = {"finished": "completed", "paused": "interrupted", "error": "failed", "stuck": "failed"}


class OpenHandsReader(FileReader):
    name = "openhands"
    label = "OpenHands"
    env_vars = ("OPENHANDS_CONVERSATIONS_DIR", "OPENHANDS_PERSISTENCE_DIR", "OH_CONVERSATIONS_PATH", "FILE_STORE_PATH", "HOME")

    def default_dirs(self) -> list[Path]:
        """The CLI's `get_conversations_dir()`, the agent server's folder when it is moved, and
        the V0 file store's conversations (`$FILE_STORE_PATH`, default ~/.openhands)."""
        persistence = os.environ.get("OPENHANDS_PERSISTENCE_DIR")
        conversations = os.environ.get("OPENHANDS_CONVERSATIONS_DIR")
        server = os.environ.get("OH_CONVERSATIONS_PATH")
        store = os.environ.get("FILE_STORE_PATH")
        home = Path.home()
        folders = [Path(conversations).expanduser() if conversations
                   else (Path(persistence).expanduser() if persistence else home / ".openhands") / "conversations"]
        if server and Path(server).expanduser().is_absolute():
            folders.append(Path(server).expanduser())
        store_folder = Path(store).expanduser() if store else home / ".openhands"
        folders += [store_folder / "sessions", store_folder / "users"]
        return list(dict.fromkeys(folders))

    def detect(self, path: Path, head: Head) -> tuple[str, Path] | None:
        """The shape ("sdk", "v0", "trajectory") and the conversation folder (or file) a file
        belongs to."""
        name = plain_name(path).name
        data = head.data[:65536]
        if (name == STATE or head.named) and all(pattern.search(data) for pattern in _STATE_HEAD):
            return "sdk", path.parent
        if (EVENT_NAME.match(name) or head.named) and _EVENT_HEAD.search(data) and _KIND.search(data):
            return "sdk", path.parent.parent if path.parent.name == "events" else path.parent
        shape = legacy.sniff(path, head)
        if shape == "events":
            return "v0", path.parent.parent if path.parent.name == "events" else path.parent
        return ("trajectory", path) if shape else None

    def group(self, found: dict[Path, tuple[str, Path]], root: Path) -> Iterator[SessionSource]:
        v0: dict[Path, list[Path]] = {}
        for path, (shape, folder) in sorted(found.items()):
            if shape == "trajectory":
                yield SessionSource(self.name, path, root)
            elif shape == "v0":
                v0.setdefault(folder, []).append(path)
        for folder, paths in sorted(v0.items()):
            metadata = folder / legacy.METADATA
            main = metadata if metadata.is_file() else paths[0]
            yield SessionSource(self.name, main, root, tuple(path for path in paths if path != main))
        yield from self._sdk_sources({path: folder for path, (shape, folder) in found.items() if shape == "sdk"}, root)

    def _sdk_sources(self, found: dict[Path, Path], root: Path) -> Iterator[SessionSource]:
        folders = sorted(set(found.values()))
        known = set(folders)
        parent_of = {folder: folder.parent.parent for folder in folders
                     if folder.parent.name == "subagents" and folder.parent.parent in known}
        files_of: dict[Path, list[Path]] = {}
        for path, folder in sorted(found.items()):
            files_of.setdefault(folder, []).append(path)
        for top, members in families(folders, parent_of).items():
            files = [path for member in members for path in files_of[member]]
            main = top / STATE if top / STATE in files else files_of[top][0]
            yield SessionSource(self.name, main, root, tuple(path for path in files if path != main))

    def read_sessions(self, source: SessionSource) -> list[Session]:
        if source.path.name == legacy.METADATA or (source.path.name != STATE and not EVENT_NAME.match(source.path.name)):
            shape = "v0" if source.path.name == legacy.METADATA else _shape_of(source.path)
            if shape == "v0":
                folder = source.path.parent.parent if source.path.parent.name == "events" else source.path.parent
                return [legacy.read_conversation(folder, list(source.files), source.label, self.name)]
            if shape == "trajectory":
                return [legacy.read_trajectory(source.path, source.rel, self.name)]
        by_folder: dict[Path, list[Path]] = {}
        for path in source.files:
            folder = path.parent if path.name == STATE or path.parent.name != "events" else path.parent.parent
            by_folder.setdefault(folder, []).append(path)
        top = source.path.parent if source.path.parent in by_folder else min(by_folder)
        sessions = {folder: _conversation(folder, paths, source) for folder, paths in sorted(by_folder.items())}
        for folder, session in sessions.items():
            parent = sessions.get(folder.parent.parent) if folder.parent.name == "subagents" else None
            if parent is not None and folder != top:
                session.parent_id = parent.id
                parent.children.append(session)
        for session in sessions.values():
            _link_tasks(session)
        return [sessions[top]]


READER = OpenHandsReader()


def _shape_of(path: Path) -> str | None:
    """What a file of another name is (named on the command line), as `detect` tells it."""
    try:
        found = READER.detect(path, read_head(path, named=True))
    except OSError:
        return None
    return found[0] if found else None


def _index(path: Path) -> tuple[int, str]:
    match = EVENT_NAME.match(path.name)
    return (int(match.group(1)) if match else -1, path.name)


def _conversation(folder: Path, paths: list[Path], source: SessionSource) -> Session:
    session = Session(id=folder.name, format=READER.name, source=source.label(folder / STATE if (folder / STATE) in paths else paths[0]))
    state, loaded = legacy.load_folder(paths, session, source.label, STATE, _index)
    events = [Event(record, where) for record, where in loaded]
    session.id = string(state.get("id")) or folder.name
    llm = mapping(mapping(state.get("agent")).get("llm"))
    if string(llm.get("model")):
        session.declared_models.append(llm["model"])
    session.cwd = string(mapping(state.get("workspace")).get("working_dir"))
    builder = Builder(session, responses(state), off_branch(events, string(state.get("leaf_event_id"))))
    builder.build(events)
    session.number_steps()
    times = [step.timestamp for step in session.steps if step.timestamp]
    session.started_at = min(times) if times else utc_time(None)
    session.ended_at = max(times) if times else None
    status = string(state.get("execution_status"))
    if status:
        session.facts.append(Fact("Execution status", status))
        session.outcome = OUTCOMES.get(status)
    session.title = first_request(user_prompts(session.steps)) or session.id
    return session


def _prompts_of(call) -> list[str]:
    """What a subagent call asked its subagents: the task tool's prompt, the delegate tool's
    tasks (one per subagent id)."""
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    if call.name == "task" and isinstance(arguments.get("prompt"), str):
        return [arguments["prompt"]]
    tasks = arguments.get("tasks") if call.name == "delegate" else None
    return [task for task in tasks.values() if isinstance(task, str)] if isinstance(tasks, dict) else []


def _link_tasks(session: Session) -> None:
    """A task or delegate call is linked to the children whose first request is what it asked."""
    first: dict[str, list[str]] = {}
    for child in session.children:
        prompt = next(iter(user_prompts(child.steps)), None)
        if prompt is not None:
            first.setdefault(prompt.strip(), []).append(child.id)
    linked: set[str] = set()
    for step in session.steps:
        for call in step.tool_calls:
            for prompt in _prompts_of(call):
                child = next((ident for ident in first.get(prompt.strip(), []) if ident not in linked), None)
                if child is None:
                    continue
                call.child_session_id = call.child_session_id or child
                call.missing_result = False
                step.child_session_ids.append(child)
                linked.add(child)
    unlinked = [child.id for child in session.children if child.id not in linked]
    if unlinked:
        session.facts.append(Fact("Subagents not named by a call", ", ".join(unlinked)))
