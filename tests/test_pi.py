"""The Pi reader against tests/data/pi: figures counted by hand from the lines.

v3-2026/--home-dev-calc--/…0001.jsonl (24 lines): a header, 22 entries and one truncated line
(11). Its tree branches at e10: e11 (a user message) and e12 (an assistant message whose request
failed) are a branch the user left, then e13 summarises it and e14 goes on from e10. The last
entry (e22) is the leaf, so e11 and e12 are folded. …0002.jsonl is forked from it
(`parentSession`): its first five entries are copies of e1-e5.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from readertools import check_folders, read_found

from replay_site.discover import find_sources
from replay_site.model import Usage
from replay_site.readers import registry
from replay_site.readers.files import read_head
from replay_site.readers.pi.reader import READER

DATA = Path(__file__).parent / "data" / "pi"
MAIN = "0195f0a0-0000-7000-8000-000000000001"
FORK = "0195f0a0-0000-7000-8000-000000000002"


def read(folder: Path):
    _, (session,) = read_found(folder, "pi")
    return session


def test_registered_with_its_folder_and_variable(monkeypatch):
    assert registry()["pi"] is READER
    check_folders(monkeypatch, "pi", [Path.home() / ".pi" / "agent" / "sessions"],
                  "PI_CODING_AGENT_DIR", "/tmp/pi-agent", [Path("/tmp/pi-agent/sessions")])


def test_pi_files_are_not_taken_for_codex_sessions():
    codex = registry()["codex"]
    for path in DATA.rglob("*.jsonl"):
        assert codex.detect(path, read_head(path)) is None, path
    sources = find_sources(DATA, list(registry().values()), [])
    assert {source.format for source in sources} == {"pi"}
    assert len(sources) == 2  # the fork is read with the session it was forked from
    simplified = Path(__file__).parent / "data" / "codex" / "simplified.jsonl"
    assert READER.detect(simplified, read_head(simplified)) is None
    assert codex.detect(simplified, read_head(simplified)) is not None


def test_v3_session_figures():
    session = read(DATA / "v3-2026")
    assert session.id == MAIN and session.title == "Division by zero fix"  # the session_info entry's name
    assert session.cwd == "/home/dev/calc"
    # Steps: 2 settings + 3 users + 7 assistants + branch summary + orphan result + unknown entry
    # + the user's own command = 16; the 5 paired tool results and the header, label and name are no step.
    assert len(session.steps) == 16
    # Calls: read, edit, bash (exit 1), write, bash (no result), the orphan result, the user's git diff.
    assert session.tool_calls == 6 and session.failed_tool_calls == 1  # step 12's orphan result is shown, not a call
    # Errors: the failed bash and e12's failed request (in the branch left).
    assert session.error_count == 2
    # Tokens of the six assistant messages with usage (e12 has none):
    # input 1200+50+30+20+60+15, output 80+120+40+30+200+25, cache read 0+4200+4400+4500+4600+4900,
    # cache write 3000+100.
    assert session.usage == Usage(input=1375, output=495, cache_read=22600, cache_write_5m=3100)
    # Pi's own cost on five of them (e8 logs 0: no price, left for the estimate).
    cost = session.cost
    assert cost.priced_steps == 5 and cost.usd == pytest.approx(0.01605 + 0.003 + 0.0017 + 0.0055 + 0.0019)
    assert session.steps[5].cost is None and session.steps[5].usage.cache_read == 4400


def test_branch_left_is_folded_and_calls_paired():
    steps = read(DATA / "v3-2026").steps
    assert [(step.number, step.title) for step in steps if step.collapsed and step.title.startswith("Branch left")] == [
        (8, "Branch left"), (9, "Branch left")]
    assert steps[8].error == "529 overloaded_error"
    bash = steps[5].tool_calls[0]
    assert (bash.is_error, bash.exit_code, bash.code) == (True, 1, "pytest -q")
    (edit,) = steps[4].tool_calls[0].changes
    assert edit.path == "calc.py" and edit.line_counts == (2, 0)
    write, unanswered = steps[11].tool_calls
    assert write.changes[0].kind == "add" and write.changes[0].line_counts == (7, 0)
    assert unanswered.missing_result and not write.missing_result
    assert steps[12].tool_calls[0].orphan and steps[12].tool_calls[0].output == "stray output"
    assert steps[14].tool_calls[0].code == "git diff --stat" and steps[14].tool_calls[0].exit_code == 0


def test_every_line_accounted_for_and_problems_named():
    session = read(DATA / "v3-2026")
    records = session.records
    assert sum(records["shown"].values()) + sum(records["not_shown"].values()) + sum(records["unknown"].values()) == 23
    assert records["unknown"] == {"teleport": 1}
    assert records["not_shown"] == {"session": 1, "label": 1, "session_info": 1}
    assert [(problem.kind, problem.line) for problem in session.problems] == [("bad_line", 11), ("unknown_event", 22)]
    assert session.steps[13].kind == "event" and "teleport" in session.steps[13].details[0].text


def test_fork_is_a_child_whose_copied_entries_count_in_the_parent():
    (fork,) = read(DATA / "v3-2026").children
    assert (fork.id, fork.relation, fork.parent_id) == (FORK, "fork", MAIN)
    # One folded step for the five copied entries, then its own user and assistant messages.
    assert [step.kind for step in fork.steps] == ["event", "user", "assistant"]
    assert fork.usage == Usage(input=5, output=10) and fork.cost.usd == pytest.approx(0.0002)


def test_v1_session_without_ids():
    session = read(DATA / "v1-2025")
    assert (len(session.steps), session.tool_calls, session.failed_tool_calls) == (3, 1, 0)
    assert session.usage == Usage(input=1000, output=80, cache_read=900)
    assert session.steps[1].tool_calls[0].output == "README.md\nsetup.py"
    assert session.models == ["gpt-5"] and session.title == "List the files"
