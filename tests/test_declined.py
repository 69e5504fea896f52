"""A call the user refused is the user's choice, not the agent's failure (issue 30): counted as
"declined by the user" beside the errors (the session's header, the index, sessions.json, the
card), never in the error count, the error list or `check --max-errors`.

Each figure below is counted by hand from the log named beside it.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from sitetools import soup

from replay_site.pipeline import stages as site
from replay_site.load import ReadOptions, iter_sessions
from replay_site import model
from replay_site.model import Session, Step, ToolCall
from replay_site.pages import views_audit

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("output", [
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit…",  # Claude Code
    "Error: The user doesn't want to proceed with this tool use.",  # Claude Code's toolUseResult
    "The user doesn't want to take this action right now. STOP what you are doing",  # Claude Code, stopped
    "User denied tool execution",  # Glue
    "exec command rejected by user", "patch rejected by user",  # Codex
    "Execution declined by user",  # gptme
    "The user rejected permission to use this specific tool call.",  # OpenCode
    "[Operation Cancelled] Reason: User did not allow tool call",  # Gemini CLI
])
def test_the_producers_wordings_of_a_refusal_are_declined(output):
    assert ToolCall("Bash", output=output, is_error=True).declined
    assert not ToolCall("Bash", output=output, is_error=False).declined  # a result that only quotes one is no refusal


def test_a_refusal_is_found_whatever_its_case_as_the_regex_alone_finds_it():
    """is_declined looks for "user" before trying the caseless regex: the shortcut skips no
    refusal the regex finds (upper case, a long s, which the regex takes for an s)."""
    generator = random.Random(30)
    words = ["user", "USER", "uſer", "Uſer", "UsER", "the", "by", "denied", "rejected", "REFUSED", "doesn't", "want",
             "to", "proceed", "ß", "K", "x"]
    texts = [" ".join(generator.choice(words) for _ in range(generator.randint(1, 8))) for _ in range(20000)]
    declined = [text for text in texts if ToolCall("Bash", output=text, is_error=True).declined]
    assert declined == [text for text in texts if model.DECLINED.search(text[:model.DECLINED_HEAD])]
    assert any("ſ" in text for text in declined) and any("USER" in text for text in declined)


@pytest.mark.parametrize("output", [
    "ls: cannot open directory '/root': Permission denied",
    "ps: operation not permitted",  # the sandbox, not the user: a probe
    "Browser Use rejected this action due to browser security policy.",
    "AssertionError: expected the request to be rejected by the server",
    "x" * 400 + " denied by the user",  # past the head of the result: the output of a command, not a refusal
])
def test_other_failures_are_not_declined(output):
    assert not ToolCall("Bash", output=output, is_error=True).declined


def test_a_refusal_beside_a_failure_in_one_step():
    # one step: the user refuses rm (1 declined), pytest fails (1 error): 1 error, 1 declined,
    # and the error list's line names pytest, not the refusal
    step = Step("assistant", number=1, tool_calls=[
        ToolCall("Bash", code="rm -rf build", output="User denied tool execution", is_error=True),
        ToolCall("Bash", code="pytest -q", output="F\nE   assert 1 == 2\n1 failed", is_error=True, exit_code=1)])
    assert (step.error_count, step.failed_tool_calls, step.declined_calls) == (1, 1, 1)
    assert views_audit.error_label(step) == "pytest -q failed (exit 1): 1 failed"


def _read(root: Path) -> dict[str, Session]:
    return {session.id: session for session in iter_sessions([root], ReadOptions())}


def test_corpus_refusals_are_counted_apart(corpus):
    found = {**_read(corpus / "claude/codemie"), **_read(corpus / "glue/constructed"), **_read(corpus / "codex")}
    figures = {session_id: (found[session_id].error_count, found[session_id].declined_calls) for session_id in (
        # session-9eda1058.jsonl: one tool_result, the Write of #2, "The user doesn't want to proceed": nothing else failed
        "9eda1058-9706-484a-b992-d03f9cfa2546",
        # 1790946341220-*: the parent's dart test (#4) denied; its subagent's sed (#3) denied; nothing else failed
        "1790946341220-77310-3q8w0zd", "1790946341220-77310-3q8w0zd:sub:sub-mj4k2w9s1c-0x7qv3a",
        # 1789374063402-*: the edit that missed (#4) and ls test/golden (#7, exit 2): errors, no refusal
        "1789374063402-48211-1k2x9fq",
        # rollout 019e1625: write_stdin #11, the rg searches #24, #26, #36 and npm test #47 failed: 5, no refusal
        "019e1625-789d-76c0-80ab-3724b5ddb799")}
    assert figures == {"9eda1058-9706-484a-b992-d03f9cfa2546": (0, 1), "1790946341220-77310-3q8w0zd": (0, 1),
                       "1790946341220-77310-3q8w0zd:sub:sub-mj4k2w9s1c-0x7qv3a": (0, 1),
                       "1789374063402-48211-1k2x9fq": (2, 0), "019e1625-789d-76c0-80ab-3724b5ddb799": (5, 0)}


def _codex_refused(folder: Path) -> Path:
    """A Codex rollout written here: the user declines `git push` (#2, "exec command rejected
    by user"), the agent runs `npm test` instead, which fails (#3, exit 1), and answers (#4)."""
    folder.mkdir(parents=True)
    call = '{"timestamp":"2026-02-03T11:00:0%d.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\\"command\\": [\\"bash\\", \\"-lc\\", \\"%s\\"]}","call_id":"call_%d"}}'
    result = '{"timestamp":"2026-02-03T11:00:0%d.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_%d","output":"%s"}}'
    lines = [
        '{"timestamp":"2026-02-03T11:00:00.000Z","type":"session_meta","payload":{"id":"0c500000-0000-4000-8000-0000000000d1","timestamp":"2026-02-03T11:00:00.000Z","cwd":"/home/dev/declined","originator":"codex_cli_rs","cli_version":"0.169.0","source":"cli"}}',
        '{"timestamp":"2026-02-03T11:00:01.000Z","type":"turn_context","payload":{"cwd":"/home/dev/declined","model":"gpt-5-codex"}}',
        '{"timestamp":"2026-02-03T11:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Push the branch."}]}}',
        call % (2, "git push", 1), result % (3, 1, "exec command rejected by user"),
        call % (4, "npm test", 2),
        result % (5, 2, '{\\"output\\": \\"FAIL src/a.test.js\\\\n1 failed\\\\n\\", \\"metadata\\": {\\"exit_code\\": 1, \\"duration_seconds\\": 1.0}}'),
        '{"timestamp":"2026-02-03T11:00:06.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"You declined the push; npm test fails in src/a.test.js."}]}}',
    ]
    path = folder / "rollout-2026-02-03T11-00-00-0c500000-0000-4000-8000-0000000000d1.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return folder


def test_codex_refusal_on_the_page_and_in_sessions_json(tmp_path):
    source = _codex_refused(tmp_path / "logs")
    out = tmp_path / "site"
    site.build([source], out, site.BuildOptions())
    (entry,) = json.loads((out / "sessions.json").read_text())["sessions"]
    # the rejected git push is declined, the failed npm test the one error
    assert (entry["errors"], entry["failed_tool_calls"], entry["declined"]) == (1, 1, 1)
    page = soup(next((out / "sessions").glob("*.html")))
    facts = {div.dt.get_text(strip=True): div.dd.get_text(" ", strip=True) for div in page.select("dl.facts > div")}
    assert facts["Errors"] == "1 error" and facts["Declined"] == "1 call declined by the user"
    errors = [li.get_text(" ", strip=True) for li in page.select("#errors li")]
    assert len(errors) == 1 and "npm test" in errors[0] and "git push" not in errors[0]
    card = page.select_one("#what-went-wrong").get_text(" ", strip=True)
    assert "npm test" in card and "git push" in card  # the failure that mattered, and the refusal beside it
    row = soup(out / "index.html").select_one("table.session-table td.errors")
    assert row["data-value"] == "1" and row.select_one(".declined").get_text() == "+1\xa0declined"


def test_claude_fixture_refusal_is_no_error(tmp_path):
    # tests/data/claude/-home-dev-verdicts c5…02: the user refuses `rm -rf build` (#2), nothing fails
    out = tmp_path / "site"
    site.build([DATA / "claude/-home-dev-verdicts"], out, site.BuildOptions())
    by_id = {entry["id"]: entry for entry in json.loads((out / "sessions.json").read_text())["sessions"]}
    assert (by_id["c5000000-0000-4000-8000-000000000002"]["errors"], by_id["c5000000-0000-4000-8000-000000000002"]["declined"]) == (0, 1)
    page = soup(next((out / "sessions").glob("c5000000-0000-4000-8000-000000000002*.html")))
    assert page.select_one("#errors") is None  # no error list: nothing failed
    assert page.select_one("#what-went-wrong .verdict").get_text(strip=True) == "Declined by the user at #2, nothing else failed."
