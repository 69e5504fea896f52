"""Qwen Code (QwenLM/qwen-code, a fork of Gemini CLI) sessions -> Sessions.

Since its own recorder (2025), Qwen Code writes one JSONL file per session:
`<QWEN_RUNTIME_DIR or ~/.qwen>/projects/<the project path, non-alphanumerics as ->/chats/<session id>.jsonl`.
Its records carry `uuid`, `parentUuid`, `sessionId` and `type` user/assistant like Claude
Code's lines, so only the content tells them apart: a Qwen record's `message` is Gemini API
Content (`parts`, never Claude's `content`), and only Qwen writes `tool_result` records,
`usageMetadata`, `toolCallResult` and `systemPayload` (`is_qwen_record`; the Claude reader
asks it too). Sessions of the first releases, kept in Gemini CLI's shape under
`~/.qwen/tmp/<hash>/chats/`, are read with the Gemini reader's code, as Qwen sessions.
The steps are built in records.py.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay_site.model import Session
from replay_site.readers import FileReader, SessionSource, jsonl
from replay_site.readers.fields import first_request, mapping, mark_unanswered, string, text, user_prompts
from replay_site.readers.files import Head, plain_name, read_head
from replay_site.readers.gemini.reader import Found as ConversationFound
from replay_site.readers.gemini.reader import group_sessions, is_header, model_family, read_family, sniff_conversation
from replay_site.readers.qwen.records import BOOKKEEPING, StepBuilder, active_chain, kind_of
from replay_site.readers.timestamps import utc_time

FORMAT = "qwen"
SUBAGENT_TOOLS = ("task", "agent")  # the tools that start a subagent


def is_qwen_record(obj: dict[str, Any]) -> bool:
    """A Qwen Code chat record: Claude-like ids, but Gemini API content or Qwen's own fields."""
    if not isinstance(obj.get("uuid"), str) or not isinstance(obj.get("sessionId"), str):
        return False
    message = obj.get("message")
    if isinstance(message, dict) and isinstance(message.get("parts"), list):
        return True
    return obj.get("type") == "tool_result" or any(key in obj for key in ("usageMetadata", "toolCallResult", "systemPayload"))


@dataclass(frozen=True)
class Found:
    session_id: str
    legacy: ConversationFound | None = None  # a session kept in Gemini CLI's shape


class QwenReader(FileReader):
    name = FORMAT
    label = "Qwen Code"
    env_vars = ("QWEN_RUNTIME_DIR", "HOME")

    def default_dirs(self) -> list[Path]:
        runtime = os.environ.get("QWEN_RUNTIME_DIR")
        base = Path(runtime).expanduser() if runtime else Path.home() / ".qwen"
        return [base / "projects", base / "tmp"]

    def detect(self, path: Path, head: Head) -> Found | None:
        if plain_name(path).suffix == ".jsonl" or head.named:
            record = next((obj for obj in head.objects() if is_qwen_record(obj)), None)
            if record is not None:
                return Found(record["sessionId"])
        legacy = sniff_conversation(path, head)
        if legacy is not None and (".qwen" in path.parts or not model_family(head)):
            return Found(legacy.session_id, legacy)
        return None

    def group(self, found: dict[Path, Found], root: Path) -> Iterator[SessionSource]:
        legacy = {path: item.legacy for path, item in found.items() if item.legacy is not None}
        yield from group_sessions(self.name, legacy, root)
        for path in sorted(found):
            if found[path].legacy is None:
                yield SessionSource(self.name, path, root)

    def read_sessions(self, source: SessionSource) -> list[Session]:
        if plain_name(source.path).suffix == ".json" or _gemini_shaped(source.path):
            return read_family(source, FORMAT)
        return [read_records(source.path, source.label(source.path))]


def _gemini_shaped(path: Path) -> bool:
    try:
        first = read_head(path).first_object(1)
    except OSError:
        return False
    return first is not None and is_header(first)


def read_records(path: Path, label: str) -> Session:
    session = Session(id=plain_name(path).stem, format=FORMAT, source=label)
    records = [(line, obj) for line, obj in jsonl.iter_objects(path, session.problems, label)]
    session.id = next((obj["sessionId"] for _, obj in records if string(obj.get("sessionId"))), session.id)
    chain = active_chain([obj for _, obj in records])
    main = StepBuilder(session)
    agents: dict[str, StepBuilder] = {}
    for line, record in records:
        builder = main
        agent = string(record.get("agentId"))
        if agent and record.get("isSidechain") is True:
            if agent not in agents:
                agents[agent] = StepBuilder(_child(session, agent, record, label))
                _link(main, agents[agent].session)
            builder = agents[agent]
        _head(builder.session, record)
        subtype = string(record.get("subtype"))
        builder.session.count_record(kind_of(record), "not_shown" if subtype in BOOKKEEPING else "shown")
        builder.add(line, record, not isinstance(record.get("uuid"), str) or record["uuid"] in chain or builder is not main)
    for builder in (main, *agents.values()):
        _finish(builder)
    session.children = [builder.session for builder in agents.values()]
    return session


def _link(main: StepBuilder, child: Session) -> None:
    """The call that started a subagent: the latest subagent call not yet linked, the one
    naming the agent's type first (its first record follows the call, before the result)."""
    waiting = [(step, call) for step in main.steps for call in step.tool_calls
               if call.name in SUBAGENT_TOOLS and call.child_session_id is None]
    named = [(step, call) for step, call in waiting
             if isinstance(call.arguments, dict) and text(call.arguments.get("subagent_type")).lower() == child.title.lower()]
    found = (named or waiting)[-1:]
    for step, call in found:
        call.child_session_id = child.id
        step.child_session_ids.append(child.id)


def _child(parent: Session, agent: str, record: dict[str, Any], label: str) -> Session:
    name = string(record.get("agentName")) or agent
    return Session(id=f"{parent.id}:{agent}", format=FORMAT, source=label, parent_id=parent.id, title=name)


def _head(session: Session, record: dict[str, Any]) -> None:
    """What a record says of its session: ids, folder, version, branch, the title it was given."""
    session.cwd = session.cwd or string(record.get("cwd"))
    session.agent_version = session.agent_version or string(record.get("version"))
    session.git_branch = session.git_branch or string(record.get("gitBranch"))
    payload = mapping(record.get("systemPayload"))
    if record.get("subtype") == "custom_title" and string(payload.get("customTitle")):
        session.title = payload["customTitle"]  # the last rename wins
    when = utc_time(record.get("timestamp"))
    if when:
        session.started_at = min(session.started_at or when, when)
        session.ended_at = max(session.ended_at or when, when)


def _finish(builder: StepBuilder) -> None:
    session = builder.session
    session.steps = builder.steps
    waiting = {id(call) for call in builder.unanswered()}
    mark_unanswered((call for step in session.steps for call in step.tool_calls),
                    {id(call) for step in session.steps for call in step.tool_calls if id(call) not in waiting})
    session.number_steps()
    session.title = session.title or first_request(user_prompts(session.steps)) or session.id


READER = QwenReader()
