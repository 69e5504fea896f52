"""The cursor-agent reader against tests/data/cursor/cursor-agent-2026.sql: a chat store of
8 message blobs under a root node (3 messages and a node of 5 more), one message blob the
root does not reach (an earlier state), figures counted by hand."""
from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from readertools import database_from, read_found

from replay_site.discover import find_sources
from replay_site.readers import registry
from replay_site.readers.cursor.reader import READER
from replay_site.readers.cursor.store import references

DATA = Path(__file__).parent / "data" / "cursor"


def store(tmp_path: Path) -> Path:
    return database_from(DATA / "cursor-agent-2026.sql", tmp_path / "chats" / "0a1b" / "c7d1" / "store.db")


def test_registered_with_its_folder():
    assert registry()["cursor"] is READER
    assert READER.default_dirs() == [Path.home() / ".cursor" / "chats"] and READER.env_vars == ()


def test_chat_figures(tmp_path):
    store(tmp_path)
    _, (session,) = read_found(tmp_path, "cursor")
    assert session.id == "c7d1a2b3-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    assert session.title == "Add a README title"  # "New Agent" is Cursor's placeholder; the <user_query> titles it
    # Steps: system prompt, request, 3 assistant messages, the unknown role; tool messages join their calls.
    assert [step.kind for step in session.steps] == ["context", "user", "assistant", "assistant", "assistant", "event"]
    # Read, StrReplace, Shell (exit code 1).
    assert (session.tool_calls, session.failed_tool_calls, session.error_count) == (3, 1, 1)
    (change,) = session.steps[3].tool_calls[0].changes
    assert change.path == "README.md" and change.line_counts == (2, 0)
    assert session.steps[1].details[0].text == "<user_info>OS: linux</user_info>"
    assert session.models == ["sonnet-4.5-thinking"] and not session.usage  # the store keeps no tokens
    assert session.records["not_shown"] == {"metadata": 1, "message of an earlier state": 1}
    assert session.records["unknown"] == {"message/narrator": 1}


def test_references_pass_over_other_fields():
    ident = bytes(range(32))
    assert references(b"\x10\x07" + b"\x0a\x20" + ident + b"\x1a\x02hi") == [ident.hex()]
    assert references(b"\xff") == [] and references(b"") == []


def test_mangled_store_never_makes_the_reader_raise(tmp_path):
    rng = random.Random("replay-site/cursor")
    for case in range(12):
        path = store(tmp_path / str(case))
        connection = sqlite3.connect(path)
        for (ident, data) in connection.execute("SELECT id, data FROM blobs").fetchall():
            if rng.random() < 0.5:
                cut = data[: rng.randrange(len(data))] if data else data
                connection.execute("UPDATE blobs SET data = ? WHERE id = ?", (bytes(rng.randrange(256) for _ in range(8)) + cut, ident))
        if case % 3 == 0:
            connection.execute("UPDATE meta SET value = 'not hex'")
        connection.commit()
        connection.close()
        for source in find_sources(tmp_path / str(case), [READER], []):
            for session in READER.read(source):
                assert [step.number for step in session.steps] == list(range(1, len(session.steps) + 1))
