"""The Factory Droid reader against tests/data/droid: figures counted by hand from the lines.

sessions-2026/-home-dev-shop/ holds three sessions of one project folder:
…4e01.jsonl (21 lines): the user's session, with its settings file (the session's token
totals); a truncated line (12) and a line kind no description names (16).
…5e02.jsonl (5 lines): the code-reviewer subagent its Task call (t4, 10:00:25) started at
10:00:26; its title begins `# Task Tool Invocation`. Its own settings file has its tokens.
…1f03.jsonl (3 lines): an earlier session (09:00) of the same folder, read on its own.
sessions-2026-08/…2905.jsonl (8 lines): the shape ata's audit of 2026-08 describes: the title
still "New Session", a hook's run written as a user message, a compaction that carried the
context to another provider, a turn that ended cancelled; its settings name a BYOK model.
factory-2026/ is a ~/.factory: one session under projects/ (5 lines, no settings file, so no
tokens) and an older, shorter copy of it (its first 3 lines) under sessions/.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from readertools import check_folders, read_found
from test_gemini import read_with_rates

from replay_site import load
from replay_site.discover import discover, find_sources, pick_readers
from replay_site.model import Usage
from replay_site.readers import registry
from replay_site.readers.droid.lines import todos_from
from replay_site.readers.droid.reader import READER

DATA = Path(__file__).parent / "data" / "droid"
SHOP = DATA / "sessions-2026"
MAIN = "5b0e2c1a-7d3f-4a8e-9c21-0f6a3b2d4e01"
CHILD = "9d4f1e2b-3c5a-4b6d-8e7f-1a2b3c4d5e02"
EARLIER = "2a7c9e1f-4b3d-4c5e-8f6a-7b8c9d0e1f03"


def sessions(root: Path) -> dict[str, object]:
    found = {}
    for source in find_sources(root, list(registry().values()), []):
        assert source.format == "droid"
        for session in READER.read(source):
            found[session.id] = session
    return found


def test_registered_with_its_folders(monkeypatch):
    assert registry()["droid"] is READER
    check_folders(monkeypatch, "droid", [Path.home() / ".factory"], "HOME", "/tmp/someone", [Path("/tmp/someone/.factory")])


def test_session_figures():
    session = sessions(SHOP)[MAIN]
    assert (session.title, session.cwd, session.agent_version) == ("Fix the cart total rounding", "/home/dev/shop", "session format v2")
    # Steps: 2 user turns + 7 assistant messages (lines 3, 5, 7, 10, 13, 17, 21) + the todo list,
    # the compaction, the unknown line, the orphan result (19) and the settings file's tokens = 14.
    # The six answered results (4, 6, 8, 11, 14, 18) join their calls: no step.
    assert len(session.steps) == 14
    # Calls: Read, Edit, Execute (failed), Task, ApplyPatch, Create, Execute (no result); the
    # orphan result is shown, not a call.
    assert (session.tool_calls, session.failed_tool_calls, session.error_count) == (7, 1, 1)
    # Tokens: the settings file's totals, once; thinking (310) is billed as output: 920 + 310.
    assert session.usage == Usage(input=1840, output=1230, cache_read=48000, cache_write_5m=6200, reasoning=310)
    assert session.models == ["claude-sonnet-4-5-20250929"]
    (child,) = session.children
    assert child.usage == Usage(input=400, output=60, cache_read=3000) and child.tool_calls == 1


def test_costs_from_the_price_table_and_from_rates_of_our_own(tmp_path):
    # The bundled table: Sonnet 4.5 at $3 in, $15 out, $0.30 cache reads, $3.75 5-minute writes:
    # 1840×3 + 1230×15 + 48000×0.30 + 6200×3.75 = 5520 + 18450 + 14400 + 23250 micro-dollars.
    # Haiku 4.5 at $1, $5, $0.10: 400×1 + 60×5 + 3000×0.10 = 1000 micro-dollars.
    (source,) = [s for s in discover([SHOP], pick_readers("auto"), []) if s.path.name.startswith(MAIN)]
    (session,), _ = load.read_source(source, load.ReadOptions(redact=False))
    assert session.cost.usd == pytest.approx(0.06162) and session.children[0].cost.usd == pytest.approx(0.001)
    # $1 in, $10 out, $0.10 cache reads (cache writes at the input rate): (1840 + 6200)×1 +
    # 1230×10 + 48000×0.1 = 25140; the child 400 + 600 + 300 = 1300.
    rates = {"claude-sonnet-4-5-20250929": (1, 10, 0.1), "claude-haiku-4-5-20251001": (1, 10, 0.1)}
    main = next(s for s in read_with_rates(SHOP, tmp_path, "droid", rates) if s.id == MAIN)
    assert main.cost.usd == pytest.approx(0.02514) and main.cost_with_children.usd == pytest.approx(0.02514 + 0.0013)


def test_calls_paired_diffs_and_todos():
    steps = sessions(SHOP)[MAIN].steps
    assert steps[0].text == "The cart total is off by a cent. Fix the rounding in cart.py."
    assert steps[0].details[0].label == "System reminder"
    assert steps[1].thinking == "Read the file first." and steps[1].tool_calls[0].output.startswith("def total")
    (edit,) = steps[2].tool_calls[0].changes
    assert (edit.path, edit.line_counts) == ("/home/dev/shop/cart.py", (1, 1))
    execute = steps[3].tool_calls[0]
    assert (execute.is_error, execute.code, execute.output) == (True, "pytest -q", "1 failed, 3 passed")
    assert steps[4].title == "Todo list (3 items)" and "[in_progress] Make the tests pass" in steps[4].text
    (patch,) = steps[6].tool_calls[0].changes
    assert (patch.path, patch.line_counts) == ("tests/test_cart.py", (1, 1))
    assert steps[7].title == "Compacted the context (12 messages summarised)"
    create, unanswered = steps[9].tool_calls
    assert (create.changes[0].kind, create.changes[0].line_counts) == ("add", (2, 0))
    assert unanswered.missing_result and not create.missing_result
    assert steps[10].tool_calls[0].orphan and steps[10].tool_calls[0].output == "stray output"


def test_subagent_is_linked_to_its_task_call():
    found = sessions(SHOP)
    assert set(found) == {MAIN, EARLIER}  # the subagent is read with the session that started it
    main = found[MAIN]
    (child,) = main.children
    task = main.steps[5].tool_calls[0]
    assert task.name == "Task" and task.child_session_id == child.id == CHILD
    assert (child.parent_id, child.relation, child.title) == (MAIN, "subagent", "Review the cart tests")
    assert not found[EARLIER].children and found[EARLIER].title == "What does cart.py export?"


def test_every_line_accounted_for_and_problems_named():
    session = sessions(SHOP)[MAIN]
    records = session.records
    assert sum(sum(counts.values()) for counts in records.values()) == 20  # 21 lines, one truncated
    assert records["unknown"] == {"session_teleport": 1} and records["not_shown"] == {"session_start": 1}
    assert [(p.kind, p.line) for p in session.problems] == [("bad_line", 12), ("unknown_event", 16)]
    assert "session_teleport" in session.steps[8].details[0].text


def test_a_session_in_both_folders_is_read_once_from_its_longest_copy():
    source, (session,) = read_found(DATA / "factory-2026", "droid")
    assert source.rel == "projects/-home-dev-notes/0c1d2e3f-4a5b-4c6d-9e8f-a0b1c2d3e404.jsonl"
    name = "0c1d2e3f-4a5b-4c6d-9e8f-a0b1c2d3e404"
    assert [problem.message for problem in session.problems] == [
        f"sessions/-home-dev-notes/{name}.jsonl is another copy of session {name}; read from projects/-home-dev-notes/{name}.jsonl, the longest"]
    assert not session.children
    assert (len(session.steps), session.tool_calls, session.usage) == (3, 1, Usage())
    assert session.steps[0].text == "List the notes folder"  # content as a plain string
    assert session.steps[1].tool_calls[0].output == "ideas.md\ntodo.md"  # result content as text blocks


def test_hooks_provider_switch_and_a_cancelled_turn():
    (source,) = discover([DATA / "sessions-2026-08"], pick_readers("auto"), [])
    (session,), _ = load.read_source(source, load.ReadOptions(redact=False))
    assert session.title == "Why does the health check time out?"  # not the placeholder "New Session"
    # user, hook, assistant (Execute), the carried-over context, assistant, the turn's end, tokens.
    assert [step.kind for step in session.steps] == ["user", "event", "assistant", "context", "assistant", "event", "event"]
    assert session.steps[1].title == "Hook: UserPromptSubmit" and "lint-prompt.sh" in session.steps[1].details[0].text
    assert session.steps[3].title == "Context carried over to another model provider (4 messages summarised)"
    assert (session.steps[5].title, session.outcome) == ("Turn cancelled", "interrupted")
    # A BYOK model the price table cannot know: its tokens are kept, the cost left unpriced.
    assert session.usage == Usage(input=2400, output=150)
    assert (session.cost.usd, session.cost.unpriced_models) == (0, ("custom:GLM-4.6-[Z.AI]-0",))
    assert not session.problems and not session.records["unknown"]


def test_todo_lists_as_text_or_as_items():
    assert [(item.text, item.status) for item in todos_from({"todos": "1. [completed] Fix rounding\n2. [pending] Add a test"})] == [
        ("Fix rounding", "completed"), ("Add a test", "pending")]
    assert [(item.text, item.status) for item in todos_from([{"description": "Add parser", "status": "in_progress"}, "stray"])] == [
        ("Add parser", "in_progress")]


def test_not_taken_by_other_readers():
    for path in DATA.rglob("*.jsonl"):
        for source in find_sources(path, list(registry().values()), []):
            assert source.format == "droid"
