"""Gemini CLI: the 2025 session JSON and the 2026 JSONL log (tests/data/gemini, written by hand
from google-gemini/gemini-cli's ChatRecordingService); every figure below is worked out from
those files by hand, as each comment says."""
from __future__ import annotations

from pathlib import Path

import pytest

from replay_site import load
from replay_site.costs import load_price_overrides
from replay_site.discover import discover, pick_readers
from replay_site.model import Session, Usage
from replay_site.readers import registry

DATA = Path(__file__).parent / "data" / "gemini"


def read_with_rates(root: Path, tmp_path: Path, format_name: str, rates: dict[str, tuple[float, float, float]]) -> list[Session]:
    """The sessions under `root`, priced at round rates of our own (USD per million tokens in,
    out and cache reads), so that their costs can be worked out by hand."""
    prices = tmp_path / "prices.toml"
    prices.write_text("".join(f'[models."{model}"]\ninput_per_mtok = {rate[0]}\noutput_per_mtok = {rate[1]}\ncache_read_per_mtok = {rate[2]}\n'
                              for model, rate in rates.items()))
    options = load.ReadOptions(prices=load_price_overrides(prices), redact=False)
    sessions = []
    for source in discover([root], pick_readers("auto"), []):
        assert source.format == format_name
        found, failed = load.read_source(source, options)
        assert failed == []
        sessions.extend(found)
    return sessions


def read(root: Path, tmp_path: Path) -> list[Session]:
    # $1 in, $10 out, $0.10 cache reads per million
    return read_with_rates(root, tmp_path, "gemini", {"gemini-2.5-pro": (1, 10, 0.1), "gemini-3-flash-preview": (1, 10, 0.1)})


def test_the_2025_session_json(tmp_path):
    [session] = read(DATA / "legacy-2025", tmp_path)
    assert session.id == "1a2b3c4d-0000-4000-8000-000000000001"
    assert session.title == "Rename the greet function to hello in app.py and run the tests"
    assert [step.kind for step in session.steps] == ["user", "assistant", "assistant", "event", "event", "assistant", "event"]
    # tokens: input counts the cached ones, thoughts are output apart from the candidates
    # m2: 5200-4000 = 1200 in, 40+60 = 100 out (60 reasoning); m3: 5400-5000 = 400, 120; m6: 5600-5400 = 200, 30
    assert [step.usage for step in session.steps if step.usage] == [
        Usage(input=1200, output=100, cache_read=4000, reasoning=60),
        Usage(input=400, output=120, cache_read=5000),
        Usage(input=200, output=30, cache_read=5400),
    ]
    assert session.usage == Usage(input=1800, output=250, cache_read=14400, reasoning=60)
    # (1800 * 1 + 250 * 10 + 14400 * 0.1) / 1e6
    assert session.cost.source == "estimate" and session.cost.usd == pytest.approx(0.00574)
    assert session.steps[1].thinking == "**Planning** Read the file, edit it, then run pytest."
    read_file, = session.steps[1].tool_calls
    assert read_file.output == "def greet():\n    return 'hi'\n" and not read_file.is_error
    replace, shell = session.steps[2].tool_calls
    [change] = replace.changes
    assert (change.path, change.kind, change.line_counts) == ("/home/dev/app/app.py", "modify", (1, 1))
    assert shell.is_error and shell.code == "pytest -q" and shell.language == "bash"
    assert shell.exit_code == 1  # its output's "Exit Code: 1" line
    # failures: the shell call (status error) and the API error message
    assert session.steps[4].error == "[API Error: 429 Resource has been exhausted]"
    assert session.error_count == 2 and session.tool_calls == 3
    assert session.steps[3].title == "info" and session.steps[3].text == "Request cancelled."
    # a message type Gemini CLI does not write: a raw stub, a warning, counted unknown
    assert session.steps[6].title == "message of type 'telepathy'"
    assert [problem.kind for problem in session.problems] == ["unknown_event"]
    assert session.records == {"shown": {"user": 1, "gemini": 3, "info": 1, "error": 1}, "not_shown": {}, "unknown": {"telepathy": 1}}


def test_the_2026_jsonl_log_counts_each_message_once(tmp_path):
    [session] = read(DATA / "jsonl-2026", tmp_path)
    assert session.id == "5e6f7a8b-1111-4222-8333-444455556666"
    assert session.title == "Add a health endpoint and review it"  # the summary $set last
    kinds = [(step.kind, step.title) for step in session.steps]
    assert kinds == [("user", None), ("assistant", None), ("user", "rewound"), ("assistant", "rewound"),
                     ("user", None), ("assistant", None), ("assistant", None)]
    assert session.steps[2].collapsed and session.steps[3].collapsed  # taken back by $rewindTo, kept: it was billed
    # g1 was written four times (no tokens, tokens, its call running, its result): one step, its last version
    write, = session.steps[1].tool_calls
    assert write.output == "Successfully created and wrote to new file: /srv/webshop/health.py." and not write.missing_result
    [change] = write.changes
    assert (change.kind, change.path, change.line_counts) == ("add", "/srv/webshop/health.py", (2, 0))
    assert session.records["not_shown"] == {"session header": 1, "$set": 3, "gemini (rewritten)": 3, "$rewindTo": 1}
    assert session.records["shown"] == {"user": 3, "gemini": 4}
    # g1: 3000-2000 = 1000 in, 50+10 out; g2: 300, 20; g3: 3500-3000 + 20 tool-use prompt = 520, 30+5; g4: 100, 15
    assert session.usage == Usage(input=1920, output=130, cache_read=11500, reasoning=15)
    # (1920 + 130 * 10 + 11500 * 0.1) / 1e6
    assert session.cost.usd == pytest.approx(0.00437)
    # the last line was cut while written
    assert [str(problem) for problem in session.problems] == \
        ["tmp/webshop/chats/session-2026-05-03T14-20-5e6f7a8b.jsonl:16: truncated line, skipped"]
    # the subagent's log, in the folder named by the session's id, is its child, linked by agentId
    [child] = session.children
    assert child.id == "sub-77" and child.parent_id == session.id and child.cwd == "/srv/webshop"
    delegate, = session.steps[5].tool_calls
    assert delegate.child_session_id == "sub-77" and session.steps[5].child_session_ids == ["sub-77"]
    # s2: 1000 in, 40 out; s3: 1100-1000 = 100 in, 10 out; its grep failed (the response holds an error)
    assert child.usage == Usage(input=1100, output=50, cache_read=1000)
    assert child.error_count == 1 and child.steps[1].tool_calls[0].output == "ripgrep not found"
    assert session.usage_with_children == Usage(input=3020, output=180, cache_read=12500, reasoning=15)
    assert session.cost_with_children.usd == pytest.approx(0.00437 + (1100 + 500 + 100) / 1e6)


def test_a_migrated_session_is_read_once_from_its_jsonl(tmp_path):
    chats = tmp_path / ".gemini" / "tmp" / "p1" / "chats"
    chats.mkdir(parents=True)
    legacy = (DATA / "legacy-2025/tmp/9f2c4e1ab7/chats/session-2025-11-20T09-00-1a2b3c4d.json").read_text()
    (chats / "session-2025-11-20T09-00-1a2b3c4d.json").write_text(legacy)
    header = '{"sessionId":"1a2b3c4d-0000-4000-8000-000000000001","projectHash":"9f2c4e1ab7","startTime":"2025-11-20T09:00:00.000Z","lastUpdated":"2025-11-20T09:03:10.000Z"}'
    message = '{"id":"m1","timestamp":"2025-11-20T09:00:00.000Z","type":"user","content":"Rename the greet function"}'
    (chats / "session-2025-11-20T09-00-1a2b3c4d.jsonl").write_text(header + "\n" + message + "\n")
    [session] = read(tmp_path, tmp_path)
    assert len(session.steps) == 1  # from the .jsonl; the .json's seven messages are not shown twice
    assert session.records["not_shown"]["gemini"] == 3
    assert any("migrated" in problem.message for problem in session.problems)


def test_gemini_cli_home_moves_the_default_folder(monkeypatch, tmp_path):
    reader = registry()["gemini"]
    assert reader.env_vars == ("GEMINI_CLI_HOME", "HOME")
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path))
    assert reader.default_dirs() == [tmp_path / ".gemini" / "tmp"]
    monkeypatch.delenv("GEMINI_CLI_HOME")
    assert reader.default_dirs() == [Path.home() / ".gemini" / "tmp"]
