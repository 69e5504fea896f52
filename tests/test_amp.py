"""The Amp reader against tests/data/amp: figures counted by hand from the thread files.

threads-2026/…a001.json: 14 messages (user 0, 2, 4, 6, 8, 10, 12; assistant 1, 3, 5, 7, 9, 13;
info 11), six inferences of claude-sonnet-4-5 on the assistant messages, and a usage ledger
holding those six plus a title inference of claude-haiku-4-5 no message holds. Message 9 has a
content block no description names. …a002.json is the thread it handed off to (its
`relationships` name …a001 as parent), on gpt-5.
threads-2025/…a003.json: an older thread, pretty-printed, whose usage names no model and whose
last message was cancelled. threads-vscode-2026/…a004.json: a thread of the editor extension
(its workspace as a URI object), with an image, a Task whose run reports `progress` only, an
`info` summary and user messages' `meta.sentAt`.
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
from replay_site.readers.amp.reader import READER

DATA = Path(__file__).parent / "data" / "amp"
MAIN = "T-019cc0de-1111-7000-8000-00000000a001"
HANDOFF = "T-019cc0de-2222-7000-8000-00000000a002"
OLDER = "T-019a1b2c-3333-7000-8000-00000000a003"


def read(root: Path):
    _, (session,) = read_found(root, "amp")
    return session


def test_thread_figures():
    session = read(DATA / "threads-2026")
    assert (session.id, session.title, session.cwd, session.project) == (MAIN, "Add a --verbose flag", "/home/dev/tool", "tool")
    assert (session.started_at.isoformat(), session.ended_at.isoformat()) == ("2026-03-10T09:00:00+00:00", "2026-03-10T09:01:00+00:00")
    # Steps: 3 user turns (0, 12 and the info 11) + 6 assistant messages + the unknown block of
    # message 9 + the orphan result (tu99) + the ledger's haiku inference = 12; the messages that
    # only answer calls (2, 4, 6, 8, 10) are no step of their own.
    assert len(session.steps) == 12
    # Calls: Read, edit_file, Bash (exit 1), todo_write, Bash (rejected by the user),
    # create_file, Task (error); the orphan result is shown, not a call.
    assert (session.tool_calls, session.failed_tool_calls, session.error_count) == (7, 3, 3)
    # Sonnet, from the six messages: input 1200+50+30+20+10+5, output 80+120+40+60+90+10,
    # cache writes 3000+200+100, reads 3000+3200+3300+3400+3500. The ledger repeats those six
    # (nothing beyond them) and adds haiku's 300 in, 12 out.
    assert session.usage == Usage(input=1315 + 300, output=400 + 12, cache_read=16400, cache_write_5m=3300)
    assert session.models == ["claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"]
    assert session.steps[-1].usage == Usage(input=300, output=12)


def test_costs_from_the_price_table_and_from_rates_of_our_own(tmp_path):
    # The bundled table. Sonnet 4.5 ($3 in, $15 out, $0.30 reads, $3.75 writes):
    # 1315×3 + 400×15 + 16400×0.30 + 3300×3.75 = 27240 micro-dollars; haiku 4.5 ($1, $5):
    # 300 + 60 = 360. The handed-off thread, gpt-5 ($1.25 in, $10 out, $0.125 reads):
    # 5000×1.25 + 200×10 + 1000×0.125 = 8375.
    (source,) = [s for s in discover([DATA / "threads-2026"], pick_readers("auto"), [])]
    (session,), _ = load.read_source(source, load.ReadOptions(redact=False))
    assert session.cost.usd == pytest.approx(0.0276) and session.children[0].cost.usd == pytest.approx(0.008375)
    # $1 in, $10 out, $0.10 reads, writes at the input rate: (1315 + 3300)×1 + 400×10 + 16400×0.1
    # = 10255; haiku at the same rates 300 + 120 = 420.
    rates = {"claude-sonnet-4-5-20250929": (1, 10, 0.1), "claude-haiku-4-5-20251001": (1, 10, 0.1), "gpt-5": (1, 10, 0.1)}
    (main,) = read_with_rates(DATA / "threads-2026", tmp_path, "amp", rates)
    assert main.cost.usd == pytest.approx(0.010675)


def test_calls_paired_with_their_runs_and_diffs():
    steps = read(DATA / "threads-2026").steps
    assert steps[1].thinking == "Look at cli.py first." and steps[1].tool_calls[0].output.startswith("import argparse")
    (edit,) = steps[2].tool_calls[0].changes
    assert (edit.path, edit.line_counts) == ("/home/dev/tool/cli.py", (1, 0))
    bash = steps[3].tool_calls[0]
    assert (bash.code, bash.exit_code, bash.is_error, bash.output) == ("python -m pytest -q", 1, True, "1 failed, 4 passed")
    todo, rejected = steps[4].tool_calls
    assert [(item.text, item.status) for item in todo.todos] == [("Add the flag", "completed"), ("Fix the failing test", "in_progress")]
    assert (rejected.is_error, rejected.output) == (True, "rejected-by-user")
    create, task = steps[5].tool_calls
    assert (create.changes[0].kind, create.changes[0].line_counts) == ("add", (1, 0))
    assert (task.is_error, task.output) == (True, "subagent timed out")
    assert steps[7].tool_calls[0].orphan and steps[7].tool_calls[0].output == "stray output"
    assert (steps[8].kind, steps[8].text) == ("context", "Thread shared with your workspace")


def test_unknown_block_is_a_warning_and_every_message_accounted_for():
    session = read(DATA / "threads-2026")
    assert sum(sum(counts.values()) for counts in session.records.values()) == 14
    assert session.records["unknown"] == {"block/server_tool_use": 1}
    assert [(p.kind, p.message) for p in session.problems] == [("unknown_event", "message 9: unknown Amp 'block/server_tool_use'")]
    assert session.steps[6].title == "Unknown: block/server_tool_use" and "web_search" in session.steps[6].details[0].text


def test_handed_off_thread_is_a_child_with_openai_cache_creation_as_input():
    (child,) = read(DATA / "threads-2026").children
    assert (child.id, child.parent_id, child.relation, child.title) == (HANDOFF, MAIN, "fork", "Fix the failing verbose test")
    # gpt-5: inputTokens 0 and the uncached prompt (5000) under cache creation: input 5000, no writes.
    assert child.usage == Usage(input=5000, output=200, cache_read=1000)
    assert child.steps[1].tool_calls[0].changes[0].line_counts == (1, 1)


def test_older_thread_without_models():
    session = read(DATA / "threads-2025")
    assert (session.id, session.title, session.outcome) == (OLDER, "What is in the README?", "interrupted")
    assert (len(session.steps), session.tool_calls) == (3, 1)
    assert session.usage == Usage(input=9, output=156, cache_write_5m=13258) and session.models == []


def test_editor_thread_with_progress_summary_and_image():
    session = read(DATA / "threads-vscode-2026")
    assert (session.cwd, session.project) == ("/home/dev/web app", "web app")
    user, task, summary, answer = session.steps
    assert (user.timestamp.isoformat(), user.images[0].media_type) == ("2026-03-20T09:46:45+00:00", "image/png")
    assert task.tool_calls[0].output == "tsc: 41s\nbundle: 3s"  # the run's progress lines
    assert (summary.kind, summary.text) == ("context", "Type checking takes most of the build.")
    # Opus 4.6 ($5 in, $25 out, $0.50 reads, $6.25 writes): 50×5 + 50×25 + 2000×0.5 + 2000×6.25.
    assert session.usage == Usage(input=50, output=50, cache_read=2000, cache_write_5m=2000)
    assert session.ended_at == answer.timestamp and not session.problems
    (source,) = discover([DATA / "threads-vscode-2026"], pick_readers("auto"), [])
    (priced,), _ = load.read_source(source, load.ReadOptions(redact=False))
    assert priced.cost.usd == pytest.approx((250 + 1250 + 1000 + 12500) / 1e6)


def test_not_taken_by_other_readers():
    for path in DATA.rglob("*.json"):
        for source in find_sources(path, list(registry().values()), []):
            assert source.format == "amp"


def test_registered_with_its_folder_and_variable(monkeypatch):
    assert registry()["amp"] is READER
    check_folders(monkeypatch, "amp", [Path.home() / ".local" / "share" / "amp" / "threads"],
                  "XDG_DATA_HOME", "/tmp/data", [Path("/tmp/data/amp/threads")])
