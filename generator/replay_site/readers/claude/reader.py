"""Claude Code transcripts: `~/.claude/projects/<project-slug>/<session-id>.jsonl` (see FORMATS.md (e)).

A session is one JSONL file plus the transcripts of the subagents it spawned, which live either
beside it (`agent-<id>.jsonl`, same `sessionId`; older versions) or in `<session>/subagents/`
(newer). `group` puts them into one SessionSource; `read` builds the main session with the
subagents as child sessions, each linked from the Task call that spawned it.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay_site.model import Problem, Session, Step, no_records
from replay_site.readers import FileReader, SessionSource, SessionStream
from replay_site.readers.claude.history import read_prompts, rescue
from replay_site.readers.claude.shape import Shape, shape_of
from replay_site.readers.claude.meta import META_KINDS
from replay_site.readers.claude.modes import SETTING_KINDS
from replay_site.readers.claude.settings import cleanup_hints
from replay_site.readers.claude.sidechains import split_sidechains
from replay_site.readers.claude.sidefiles import StoredOutputs, read_agent_meta, read_stored_outputs
from replay_site.readers.claude.steps import StepBuilder, first_prompt
from replay_site.readers.claude.transcript import IGNORED_KINDS, LINE_KINDS, Transcript, mark_unfinished_usage
from replay_site.readers.files import GZIP_MAGIC, ZSTD_MAGIC, Head, open_log, open_regular, plain_name, read_head, stored_size
from replay_site.readers.jsonl import iter_objects, kind_of
from replay_site.readers.qwen.reader import is_qwen_record

CONVERSATION_KINDS = frozenset({"user", "assistant", "system"}) | META_KINDS
CLAUDE_KINDS = CONVERSATION_KINDS | set(IGNORED_KINDS) | set(SETTING_KINDS) | {"attachment"}
SNIFF_LINES = 30
# A Workflow run's spine (`{"type":"started"|"result","key","agentId"}` lines, no times): its
# agents' own transcripts say all it says, so it is claimed with them and not shown.
JOURNAL = "journal.jsonl"
# A log up to this size (as stored, uncompressed) is kept parsed whole from the first look at
# its lines (the conversation's shape) to the second (its steps); of a larger one only the
# shape is kept (shape.py), and its lines are read again to build the steps (jsonl.objects_again),
# so that it is never in memory parsed whole. Keeping the shapes alone and parsing every line twice cost
# a cold build of the medium corpus (logs of 0.3-0.5 MB) 0.27 s of CPU, 3% of its instructions.
WHOLE_LOG = 4 << 20


class ClaudeReader(FileReader):
    name = "claude"
    label = "Claude Code"
    env_vars = ("CLAUDE_CONFIG_DIR", "HOME")

    def default_dirs(self) -> list[Path]:
        dirs = []
        config = os.environ.get("CLAUDE_CONFIG_DIR")
        if config:
            dirs.extend(Path(part).expanduser() / "projects" for part in config.split(",") if part.strip())
        home = Path.home() / ".claude" / "projects"
        if home not in dirs:
            dirs.append(home)
        return dirs

    def detect(self, path: Path, head: Head) -> Sniffed | None:
        return sniff_head(head)

    def hints(self, roots: list[Path]) -> list[tuple[str, str]]:
        """(file, hint) about this machine's settings, for a build reading `roots`: once a build."""
        return cleanup_hints(roots, self.default_dirs())

    def rescued(self, roots: list[Path], known: set[str], folder: Path, problems: list[Problem]) -> list[SessionSource]:
        """The sessions history.jsonl lists whose log is gone and was never archived (`known`:
        the names of the logs on disk and archived), as sources of their prompts, written below `folder`."""
        return rescue(roots, self.default_dirs(), known, folder, problems)

    def group(self, found: dict[Path, Sniffed], root: Path) -> Iterator[SessionSource]:
        if not root.is_dir():
            sniffed = found.get(root)
            if sniffed is None:
                return
            if _is_agent(root, sniffed):
                # A subagent transcript given on its own still builds, as its own session.
                yield SessionSource(self.name, root, root)
            else:
                yield SessionSource(self.name, root, root, tuple(_agents_of(root, sniffed)))
            return
        files = {path: found[path] for path in sorted(found) if plain_name(path).suffix == ".jsonl"}
        claimed: set[Path] = set()
        journals = [path for path in files if plain_name(path).name == JOURNAL and _workflow_run(path)]
        mains = [path for path, sniffed in files.items() if not _is_agent(path, sniffed) and path not in journals]
        main_ids = {_session_id(path, files[path]) for path in mains}
        agent_files = _agent_files_by_folder(files)
        runs = _folders_by_parent(agent_files)
        related: dict[Path, list[Path]] = {}
        for path in mains:
            related[path] = [p for p in _agents_of(path, files[path], files, main_ids, agent_files, runs) if p not in claimed]
            claimed.update(related[path])
        unlinked = [path for path, sniffed in files.items() if path not in claimed and _is_agent(path, sniffed)]
        for agent, main in _named_by_task_results(unlinked, files, mains).items():
            related[main].append(agent)
            claimed.add(agent)
        for journal in journals:
            main = next((main for main in mains if any(p.parent == journal.parent for p in related[main])), None)
            if main is not None:
                related[main].append(journal)
                claimed.add(journal)
        for path in mains:
            yield SessionSource(self.name, path, root, tuple(related[path]))
        for path in unlinked:
            if path not in claimed:
                yield SessionSource(self.name, path, root)

    def read_sessions(self, source: SessionSource) -> list[Session]:
        if source.prompts_only:
            return [read_prompts(source)]
        label, problems, counted = source.label(source.path), [], no_records()  # an inline sidechain's lines are counted with the main session's
        main_shape, inline = split_sidechains(_shape(source.path, iter_objects(source.path, problems, label, counted, LINE_KINDS)))
        stored = StoredOutputs(source.path)
        main = Transcript(source.path, label, main_shape, problems, counted, stored=stored)
        session = main.whole()
        children = [(child.whole(), child.builder, None, None)
                    for child in (Transcript(source.path, label, part, [], counted, agent_id) for agent_id, part in inline.items())]
        for path in source.related:
            if plain_name(path).name == JOURNAL and _workflow_run(path):
                continue
            child_label, child_problems, child_counted = source.label(path), [], no_records()
            child_shape = _shape(path, iter_objects(path, child_problems, child_label, child_counted, LINE_KINDS))
            transcript = Transcript(path, child_label, child_shape, child_problems, child_counted)
            child = transcript.whole()
            tool_use_id = read_agent_meta(path, child_label, child, first_prompt(child.steps) or child.id)
            children.append((child, transcript.builder, tool_use_id, _workflow_run(path)))
        # Subagents in the order they ran (file names are random ids); undated ones last.
        children.sort(key=lambda each: (each[0].started_at is None, each[0].started_at.isoformat() if each[0].started_at else ""))
        owners = [(session, main.builder)] + [(child, child_builder) for child, child_builder, _, _ in children]
        for child, _, tool_use_id, run in children:
            _adopt(session, owners, child, tool_use_id, run)
        mark_unfinished_usage(owners)
        read_stored_outputs([each for each in session.walk() if each is not session], stored)
        project = _project_dir(source.path).name  # the index groups sessions by project: the folder Claude Code named after the cwd
        for each in session.walk():
            each.project = project
            each.number_steps()
        return [session]

    def stream(self, source: SessionSource) -> SessionStream | None:
        """The session of a source without subagents, its steps given out as they are read
        (None for a source with subagents: `read` it whole)."""
        if source.related or source.prompts_only:
            return None
        label, problems, counted = source.label(source.path), [], no_records()
        main_shape, inline = split_sidechains(_shape(source.path, iter_objects(source.path, problems, label, counted, LINE_KINDS)))
        if inline:
            return None
        return _Streamed(Transcript(source.path, label, main_shape, problems, counted, stored=StoredOutputs(source.path)),
                         _project_dir(source.path).name)


class _Streamed(SessionStream):
    def __init__(self, transcript: Transcript, project: str) -> None:
        self._transcript, self._project = transcript, project

    def raw_steps(self) -> Iterator[Step]:
        return self._transcript.steps()

    def raw_session(self) -> Session:
        session = self._transcript.session()
        session.project = self._project
        return session


@dataclass(frozen=True)
class Sniffed:
    """What a file's head says: its first Claude Code line, and every sessionId in the head
    in order (a subagent file written by a resumed process starts with the new process's id
    and goes on with the main session's)."""

    line: dict[str, Any]
    session_ids: tuple[str, ...]


def sniff_head(head: Head) -> Sniffed | None:
    """The first Claude Code line of a file (a dict with type and ids), or None when it is not one."""
    objects = head.objects(SNIFF_LINES)
    if any(is_qwen_record(obj) for obj in objects):
        return None  # Qwen Code's records have Claude Code's ids but Gemini's content: readers/qwen
    if _workflow_run(head.path) and plain_name(head.path).name == JOURNAL and objects and _is_journal_line(objects[0]):
        return Sniffed(objects[0], ())
    for obj in objects:
        if kind_of(obj) in CLAUDE_KINDS and any(key in obj for key in ("sessionId", "uuid", "leafUuid", "messageId")):
            if obj.get("type") in ("user", "assistant", "system") or "sessionId" in obj:
                ids = (value for each in objects if isinstance(value := each.get("sessionId"), str) and value)
                return Sniffed(obj, tuple(dict.fromkeys(ids)))
            continue  # summaries and snapshots come first; keep looking for the session id
        return None
    return None


def sniff(path: Path) -> Sniffed | None:
    """`sniff_head` of a file that discovery did not read (the siblings of a file named alone)."""
    try:
        return sniff_head(read_head(path))
    except OSError:
        return None


def _is_journal_line(obj: dict[str, Any]) -> bool:
    return obj.get("type") in ("started", "result") and "agentId" in obj and "key" in obj


def _is_agent(path: Path, sniffed: Sniffed) -> bool:
    return path.name.startswith("agent-") and (sniffed.line.get("isSidechain") is True or "agentId" in sniffed.line)


def _session_id(path: Path, sniffed: Sniffed) -> str:
    value = sniffed.line.get("sessionId")
    return value if isinstance(value, str) and value else plain_name(path).stem


def _agent_files_by_folder(files: dict[Path, Sniffed]) -> dict[Path, list[Path]]:
    """The found `agent-*.jsonl` files by folder, in path order: what a glob of each main's
    folders would list of them, without a directory listing per main (3,000 of them cost a
    rebuild of a large corpus half a second)."""
    folders: dict[Path, list[Path]] = {}
    for path in sorted(files):
        if path.name.startswith("agent-") and plain_name(path).suffix == ".jsonl":
            folders.setdefault(path.parent, []).append(path)
    return folders


def _folders_by_parent(agent_files: dict[Path, list[Path]]) -> dict[Path, list[Path]]:
    """The folders holding agent files, by the folder above them (a workflow's runs), in path order."""
    parents: dict[Path, list[Path]] = {}
    for folder in sorted(agent_files):
        parents.setdefault(folder.parent, []).append(folder)
    return parents


def _agents_of(main: Path, sniffed: Sniffed, known: dict[Path, Sniffed] | None = None,
               main_ids: set[str] | None = None, agent_files: dict[Path, list[Path]] | None = None,
               runs: dict[Path, list[Path]] | None = None) -> Iterator[Path]:
    """Subagent files of `main`: `<dir>/agent-*.jsonl` naming its sessionId on any head line
    (when several mains are named, the last one named: the session the agent worked for),
    and `<dir>/<session>/subagents/`. `agent_files`: those files already found, by folder;
    `runs`: their folders by parent (_folders_by_parent), given with them."""
    def listed(folder: Path) -> list[Path]:
        return agent_files.get(folder, []) if agent_files is not None else sorted(folder.glob("agent-*.jsonl"))

    session_id = _session_id(main, sniffed)
    for candidate in listed(main.parent):
        info = known.get(candidate) if known is not None else sniff(candidate)
        if not info or not _is_agent(candidate, info):
            continue
        named = [i for i in info.session_ids if main_ids is None or i in main_ids]
        if session_id in named and (main_ids is None or named[-1] == session_id):
            yield candidate
    for folder in dict.fromkeys((plain_name(main).stem, session_id)):
        subagents = main.parent / folder / "subagents"
        workflows = subagents / "workflows"  # once: per folder found, it cost a discovery ~0.15 s on 200 sessions
        # by parent: each main looking through every folder of agent files cost ~25,000 paths on 200 sessions
        found_runs = (runs if runs is not None else _folders_by_parent(agent_files)).get(workflows, []) if agent_files is not None \
            else sorted(path for path in workflows.glob("*") if path.is_dir())
        for folder_of_agents in (subagents, *found_runs):
            for candidate in listed(folder_of_agents):
                if (known.get(candidate) if known is not None else sniff(candidate)):
                    yield candidate


_AGENT_ID = re.compile(rb'"agentId"\s*:\s*"([\w-]{1,100})"')


def _named_by_task_results(agents: list[Path], files: dict[Path, Sniffed], mains: list[Path]) -> dict[Path, Path]:
    """Subagent files no sessionId links, each given to the main file beside it whose Task
    result names its agentId. Only mains in a folder with such a file are read, and only
    their lines that mention an agentId are looked at."""
    wanted: dict[Path, dict[str, Path]] = {}
    for agent in agents:
        agent_id = files[agent].line.get("agentId")
        agent_id = agent_id if isinstance(agent_id, str) and agent_id else plain_name(agent).stem.removeprefix("agent-")
        wanted.setdefault(_project_dir(agent), {})[agent_id] = agent
    found: dict[Path, Path] = {}
    for main in mains:
        pending = wanted.get(main.parent)
        if not pending:
            continue
        try:
            with open_log(main) as handle:
                for raw in handle:
                    if b'"agentId"' not in raw:
                        continue
                    for agent_id in _AGENT_ID.findall(raw):
                        agent = pending.pop(agent_id.decode(), None)
                        if agent is not None:
                            found[agent] = main
        except OSError:
            continue
    return found


def _project_dir(path: Path) -> Path:
    # <project>/<session>/subagents/agent-x.jsonl belongs to <project>, not to "subagents";
    # so does <project>/<session>/subagents/workflows/<run>/agent-x.jsonl.
    if _workflow_run(path):
        return path.parents[4]
    return path.parent.parent.parent if path.parent.name == "subagents" else path.parent


def _shape(path: Path, objects: Iterable[tuple[int, dict[str, Any]]]) -> Shape:
    """The shape of the lines of `path` as `objects` gives them, with the lines kept whole
    when the log is at most WHOLE_LOG bytes as stored and not compressed."""
    with open_regular(path) as handle:
        size = stored_size(path, handle)
        compressed = handle.read(4).startswith((ZSTD_MAGIC, GZIP_MAGIC))
    return shape_of(path, objects, keep=size <= WHOLE_LOG and not compressed)


def _workflow_run(path: Path) -> str | None:
    """The Workflow run whose agent `path` is (`…/subagents/workflows/<run>/agent-x.jsonl`)."""
    parents = path.parents
    if len(parents) > 4 and parents[1].name == "workflows" and parents[2].name == "subagents":
        return parents[0].name
    return None


def _adopt(main: Session, owners: list[tuple[Session, StepBuilder]], child: Session,
           tool_use_id: str | None, run: str | None) -> None:
    """Nest a subagent under the session whose call spawned it (the main session, or another
    subagent for a nested one) and link it from that call: a Workflow run's agents from the
    Workflow call, others from the Task/Agent call that their meta.json or their agentId
    names, else (old logs) from the main session's Task call that has their first prompt."""
    agent_id = child.id.rpartition("-agent-")[2]
    parent, link = main, None
    for owner, owner_builder in owners:
        if owner is child:
            continue
        found = (owner_builder.workflow_calls.get(run) if run else None) or owner_builder.agent_calls.get(agent_id) \
            or (owner_builder.spawn_calls.get(tool_use_id) if tool_use_id else None)
        if found:
            parent, link = owner, found
            break
    child.parent_id, child.relation = parent.id, "subagent"
    parent.children.append(child)
    if run and link:
        # One Workflow call starts many agents: the first is the call's link, each one the step's.
        call, step = link
        call.child_session_id = call.child_session_id or child.id
        step.child_session_ids.append(child.id)
        return
    if link is None:
        # Older Task results carry no agentId: the call whose prompt is the subagent's first prompt spawned it.
        prompt = next((step.text for step in child.steps if step.kind == "user"), None)
        link = next(
            ((call, step) for step in main.steps for call in step.tool_calls
             if call.child_session_id is None and isinstance(call.arguments, dict) and prompt
             and call.arguments.get("prompt") == prompt),
            None,
        )
    if link:
        call, step = link
        call.child_session_id = child.id
        step.child_session_ids.append(child.id)
        description = call.arguments.get("description") if isinstance(call.arguments, dict) else None
        if isinstance(description, str) and description and child.title == first_prompt(child.steps):
            child.title = description


READER = ClaudeReader()
