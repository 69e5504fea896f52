"""The Aider reader against tests/data/aider: figures counted by hand from the Markdown.

v0.86-2026/calc/.aider.chat.history.md holds three runs: at 09:15:02 (two requests, two
SEARCH/REPLACE edits, one applied and one that did not conform, a /run), at 11:00:40 (Aider
started and quit: no request, so no session) and the next day (one question).
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from readertools import read_found

from replay_site.discover import find_sources
from replay_site.model import Usage
from replay_site.readers import registry
from replay_site.readers.aider.reader import READER
from replay_site.readers.aider.steps import tokens

DATA = Path(__file__).parent / "data" / "aider"


def read_all():
    return read_found(DATA, "aider")[1]


def test_registered_with_its_variable(monkeypatch):
    assert registry()["aider"] is READER
    monkeypatch.delenv("AIDER_CHAT_HISTORY_FILE", raising=False)
    assert READER.default_dirs() == []  # Aider writes into each project
    monkeypatch.setenv("AIDER_CHAT_HISTORY_FILE", "/home/dev/notes/aider.md")
    assert READER.default_dirs() == [Path("/home/dev/notes")]
    assert READER.env_vars == ("AIDER_CHAT_HISTORY_FILE",)


def test_counts_as_aider_writes_them():
    assert [tokens(value) for value in ("312", "2.3k", "12k", "", "x")] == [312, 2300, 12000, 0, 0]


def test_one_session_per_run_with_a_request():
    first, second = read_all()
    assert first.id == "calc@2026-02-10 09:15:02" and second.id == "calc@2026-02-11 08:30:00"
    assert first.local_time and first.started_at == datetime(2026, 2, 10, 9, 15, 2)
    assert first.title == "Make div raise ValueError on zero" and first.agent_version == "0.86.1"
    assert second.models == ["gpt-5"] and len(second.steps) == 3


def test_first_run_figures():
    session = read_all()[0]
    # Steps: Aider's banner, /add, its answer, the request, the reply, the commit, /run, the
    # command, Aider's question, the second request, its reply, the edit error.
    assert len(session.steps) == 12
    # Calls: the applied edit of calc.py, the /run command, the edit of test_calc.py that failed.
    assert (session.tool_calls, session.failed_tool_calls, session.error_count) == (3, 1, 1)
    # Tokens: 15k sent less 1.1k cache write and 12k cache hit, 312 received; then 15k sent, 95 received.
    assert session.usage == Usage(input=1900 + 15000, output=312 + 95, cache_read=12000, cache_write_5m=1100)
    assert session.cost.usd == pytest.approx(0.02 + 0.0049) and session.cost.priced_steps == 2  # "message" figures only
    (edit,) = session.steps[4].tool_calls
    assert edit.output == "Applied edit to calc.py" and edit.changes[0].line_counts == (2, 0)
    (failed,) = session.steps[10].tool_calls
    assert failed.is_error and failed.changes == []  # the file was left as it was
    (run,) = session.steps[7].tool_calls
    assert (run.code, run.output) == ("python -m pytest -q", "1 failed, 2 passed in 0.03s")
    assert "a quoted line of the reply" in session.steps[4].text  # a quote without Aider's line break is the model's


def test_every_line_accounted_for():
    session = read_all()[0]
    # The file's first (blank) line and the 5 lines of the run without a request are counted here.
    assert session.records["not_shown"] == {"run start": 1, "run without a request": 1 + 5}
    assert session.records["unknown"] == {}


def test_a_markdown_file_of_another_kind_is_not_taken(tmp_path):
    other = tmp_path / ".aider.chat.history.md"
    other.write_text("# Notes\n\n#### not aider\n")
    assert find_sources(tmp_path, [READER], []) == []
