"""Qwen Code: its JSONL chat records (tests/data/qwen, written by hand from QwenLM/qwen-code's
ChatRecordingService), never taken for Claude Code's nor Gemini CLI's; every figure below is
worked out from the files by hand, as each comment says."""
from __future__ import annotations

from pathlib import Path

import pytest
from test_gemini import read_with_rates

from replay_site.model import Usage
from replay_site.readers import registry
from replay_site.readers.files import read_head

DATA = Path(__file__).parent / "data" / "qwen"
LOG = DATA / "projects" / "-home-dev-todo" / "chats" / "7d1c2b3a-aaaa-4bbb-8ccc-000000000042.jsonl"


def read(root: Path, tmp_path: Path):
    # genai-prices has no Qwen model: round rates of our own, $1 in, $5 out, $0.20 cache reads per million
    return read_with_rates(root, tmp_path, "qwen", {"qwen3-coder-plus": (1, 5, 0.2)})


def test_a_qwen_session_with_its_figures(tmp_path):
    [session] = read(LOG, tmp_path)
    assert session.id == "7d1c2b3a-aaaa-4bbb-8ccc-000000000042" and session.format == "qwen"
    assert session.title == "todo --done flag"  # the custom_title record
    assert (session.cwd, session.agent_version, session.git_branch) == ("/home/dev/todo", "0.18.2", "main")
    kinds = [(step.kind, step.title) for step in session.steps]
    assert kinds == [("user", None), ("assistant", None), ("assistant", None), ("user", "rewound"), ("assistant", "rewound"),
                     ("event", "rewind"), ("user", None), ("assistant", None), ("assistant", None), ("event", "system record 'telepathy'")]
    # u2 and a3 are off the path from the last record back to the root (u3's parent is t3)
    assert session.steps[3].collapsed and session.steps[4].collapsed
    assert session.steps[1].thinking == "The flag belongs in the argparse setup."  # the thought part
    read_file, = session.steps[1].tool_calls
    assert read_file.output == "import argparse\np = argparse.ArgumentParser()\n"
    edit, shell = session.steps[2].tool_calls
    [change] = edit.changes
    assert (change.path, change.kind, change.line_counts) == ("/home/dev/todo/todo.py", "modify", (1, 0))
    assert shell.is_error and shell.code == "python todo.py --done 1"  # toolCallResult status error
    assert shell.exit_code == 1  # its output's "Exit Code: 1" line
    last, = session.steps[8].tool_calls
    assert last.missing_result  # no tool_result came for call_4
    assert session.error_count == 1 and session.tool_calls == 5
    # a1: 4000-3000 = 1000 in, 50+20 out (20 thoughts); a2: 300, 90; a3: 200, 10; a3b: 100, 25; a4: 300, 30
    assert session.usage == Usage(input=1900, output=225, cache_read=19900, reasoning=20)
    # (1900 * 1 + 225 * 5 + 19900 * 0.2) / 1e6
    assert session.cost.source == "estimate" and session.cost.usd == pytest.approx(0.007005)
    # the ui_telemetry record repeats a response's tokens: counted as bookkeeping, never added
    assert session.records == {
        "shown": {"user": 3, "assistant": 5, "tool_result": 4, "system:rewind": 1},
        "not_shown": {"system:ui_telemetry": 1, "system:custom_title": 1},
        "unknown": {"system:telepathy": 1},
    }
    assert [problem.kind for problem in session.problems] == ["bad_line", "unknown_event"]
    # the sidechain records of agent explore-7f3c make its child session, linked to the task call naming its type
    [child] = session.children
    assert (child.id, child.title, child.parent_id) == (f"{session.id}:explore-7f3c", "Explore", session.id)
    task, = session.steps[7].tool_calls
    assert task.child_session_id == child.id and task.output == "README lists no flags." and not task.is_error
    assert child.usage == Usage(input=1200, output=15)
    assert child.cost.unpriced_models == ("qwen3-coder-flash",)  # no rate for it: unknown, never $0


def test_qwen_records_are_never_taken_for_claude_or_gemini():
    head = read_head(LOG)
    readers = registry()
    said = {name: reader.detect(LOG, head) for name, reader in readers.items()}
    assert [name for name, answer in said.items() if answer is not None] == ["qwen"]
    legacy = next((DATA / "legacy").rglob("*.json"))
    said = {name: reader.detect(legacy, read_head(legacy)) for name, reader in readers.items()}
    assert [name for name, answer in said.items() if answer is not None] == ["qwen"]


def test_an_early_session_in_gemini_cli_shape_reads_as_qwen(tmp_path):
    [session] = read(DATA / "legacy", tmp_path)
    assert session.format == "qwen" and session.id == "deadbeef-0000-4000-8000-000000000007"
    assert session.usage == Usage(input=2000, output=25)
    assert session.cost.usd == pytest.approx((2000 * 1 + 25 * 5) / 1e6)


def test_qwen_runtime_dir_moves_the_default_folders(monkeypatch, tmp_path):
    reader = registry()["qwen"]
    assert reader.env_vars == ("QWEN_RUNTIME_DIR", "HOME")
    monkeypatch.setenv("QWEN_RUNTIME_DIR", str(tmp_path))
    assert reader.default_dirs() == [tmp_path / "projects", tmp_path / "tmp"]
    monkeypatch.delenv("QWEN_RUNTIME_DIR")
    assert reader.default_dirs() == [Path.home() / ".qwen" / "projects", Path.home() / ".qwen" / "tmp"]
