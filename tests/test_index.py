"""The index page: how each session ended (outcome), the status chips, the columns, the layout."""
from __future__ import annotations

import json
import pickle
from collections import Counter
from pathlib import Path

import pytest
from sitetools import soup

from replay_site.pipeline import stages as site
from replay_site.figures.summary import OUTCOMES, outcome, share_strings
from replay_site.model import Session, Step, ToolCall

DATA = Path(__file__).parent / "data"


@pytest.fixture
def example_site(data_site) -> Path:
    return data_site


def rows_by_id(index) -> dict[str, object]:
    """Index rows keyed by session id, through the row's link and sessions.json's page."""
    return {a["href"]: a.find_parent("tr") for a in index.select("table.session-table td.title a")}


def entries(out: Path) -> list[dict]:
    return json.loads((out / "sessions.json").read_text())["sessions"]


# --- outcome() on sessions built by hand: one per rule ----------------------------------------

def session(*steps: Step, status: str | None = None) -> Session:
    made = Session("s", "glue", steps=list(steps), status=status)
    made.number_steps()
    return made


def test_outcome_rules():
    ok = ToolCall("bash", output="fine")
    bad = ToolCall("bash", output="no such file", is_error=True)
    ask, answer = Step("user", text="do it"), Step("assistant", text="done")
    assert outcome(session(ask, Step("assistant", tool_calls=[ok]), answer)) == "completed"
    # a clean answer after a failed call: the session ended well, whatever failed before
    assert outcome(session(ask, Step("assistant", tool_calls=[ok, bad]), answer)) == "completed"
    # ... but a session whose last act is a failed call, with no answer after it, ended on an error
    assert outcome(session(ask, Step("assistant", tool_calls=[ok, bad]))) == "failed"
    assert outcome(session(ask, Step("assistant", text="trying", tool_calls=[bad]))) == "failed"
    # an error step after the last answer (an aborted turn, an error record) ends the session on it
    assert outcome(session(ask, answer, Step("event", title="Turn aborted", error="turn aborted: replaced"))) == "failed"
    # an earlier failure that the agent got past is not how the session ended
    assert outcome(session(ask, Step("assistant", tool_calls=[bad, ok]), answer)) == "completed"
    # an orphan result is not a call the agent made
    orphan = ToolCall("(unknown tool)", output="Error", is_error=True, orphan=True)
    assert outcome(session(ask, Step("assistant", tool_calls=[ok, orphan]), answer)) == "completed"
    assert outcome(session(ask, Step("assistant", text="x", error="overloaded"))) == "failed"
    # a user message never answered, a call whose result never came, nothing at all: unknown
    assert outcome(session(answer, ask)) == "unknown"
    assert outcome(session(ask, Step("assistant", tool_calls=[ToolCall("bash", missing_result=True)]))) == "unknown"
    assert outcome(session()) == "unknown"
    # trailing context and event steps are not turns: the assistant still had the last word
    assert outcome(session(ask, answer, Step("event", text="title"), Step("context", text="x"))) == "completed"
    # the last answer's calls all came back and nothing came after: stopped mid-work (or still running)
    assert outcome(session(ask, Step("assistant", text="running it", tool_calls=[ok]))) == "unknown"
    # what the log states wins over what the steps suggest...
    assert outcome(session(ask, Step("assistant", text="checking", tool_calls=[bad]), status="completed")) == "completed"
    # ... except a stated completion after calls the agent said nothing of, before or after
    assert outcome(session(ask, Step("assistant", tool_calls=[bad]), status="completed")) == "unknown"
    assert outcome(session(ask, answer, status="cancelled")) == "interrupted"
    assert outcome(session(ask, answer, status="interrupted")) == "interrupted"
    assert outcome(session(ask, answer, status="failed")) == "failed"
    # "running"/"incomplete" only say it did not finish: unknown, whatever its last step
    assert outcome(session(ask, answer, status="incomplete")) == "unknown"
    assert outcome(session(ask, Step("assistant", tool_calls=[bad]), status="running")) == "unknown"


def test_a_stated_outcome_on_the_session_wins():
    stated = session(Step("user", text="go"), Step("assistant", text="ok"))
    stated.outcome = "api_error"  # what a reader sets when the log says so
    assert outcome(stated) == "api_error"


# --- the example sessions (tests/data) -----------------------------------------------------

# Worked out by hand from the files:
EXAMPLE_OUTCOMES = {
    # codex/simplified.jsonl line 4: the only call (shell `ls`) returns is_error true; line 5
    # the agent answers ("The directory is not readable.") -> a clean answer ends it: completed.
    "simplified-demo": "completed",
    # claude/-home-dev-verdicts/c5…03: the log stops right after ruff's result, no answer (tests/verdict_labels.json).
    "c5000000-0000-4000-8000-000000000003": "unknown",
    # codex/verdicts/…04: the turn is aborted with no reason: a cancel.
    "0c500000-0000-4000-8000-000000000004": "interrupted",
    # gptme/legacy-forms/branches/tests-only.jsonl: its last line is the `ls tests | wc -l` result, no answer.
    "legacy-forms@tests-only": "unknown",
    # glue/1791000000000-4242-ex1/meta.json line 10: "termination_status": "interrupted".
    "1791000000000-4242-ex1": "interrupted",
    # glue/legacy-mixed.jsonl: line 9 `rm -r build` fails, line 11 `ls` succeeds, line 12 is a
    # result without a call (orphan, not the agent's) and line 13 the agent answers -> completed.
    "legacy-mixed": "completed",
    # claude/-home-dev-failing/e7…0f.jsonl line 9: "[Request interrupted by user]" is the last
    # user line that is not an injected caveat; the api_error after it is retry 1 of 10 -> interrupted.
    "e7000000-0000-4000-8000-00000000000f": "interrupted",
    # claude/-home-dev-ide/f1…0c.jsonl: the session ends with "[Request interrupted by user]".
    "f1000000-0000-4000-8000-00000000000c": "interrupted",
    # codex/ended-on-error: the last line is the failed `pytest -q` call's output (exit_code 1).
    "0a470000-0000-4000-8000-000000000048": "failed",
    # copilot/…/7c1e4f2a…/events.jsonl line 29: {"type": "abort", "reason": "user initiated"} ends the second run.
    "7c1e4f2a-5b3d-4e8f-9a01-2b3c4d5e6f70": "interrupted",
    # its Explore subagent (tc4): its one message asks for a grep whose result is its last line, no answer after.
    "7c1e4f2a-5b3d-4e8f-9a01-2b3c4d5e6f70/tc4": "unknown",
    # kimi/…/4d3c2b1a…/wire.jsonl: the last turn's step ends with StepInterrupted.
    "4d3c2b1a-0f9e-4d8c-8b7a-6e5d4c3b2a10": "interrupted",
    # aider/v0.86-2026/calc, the 09:15:02 run: pytest fails (1 failed), the fix "did not conform to the edit format", and the run ends.
    "calc@2026-02-10 09:15:02": "failed",
    # opencode/storage-2026 ses_4a1f…: its last message ends with MessageAbortedError.
    "ses_4a1f0c2e3ffe1abcDEFghiJKL1": "interrupted",
    # glue/1791000900000-7070-running/meta.json: "termination_status": "running".
    "1791000900000-7070-running": "unknown",
    # atif/harbor-v1.4: step 5 answers and calls mark_task_complete, the agent's word that it is done
    # (a completion tool: its missing observation says nothing of the work; tests/verdict_labels.json).
    "b2c7e0d4-hello-task": "completed",
    # atif/subagents-v1.7/main.cont-1.json: the run's last step, an apply_patch call, has no result.
    "run-42": "unknown",
    # atif/subagents-v1.7/review.json: its only call, run_tests, failed ("status": "error") and ends it.
    "review-1": "failed",
    # atif/dataset-v1.8 line 2: the speak call has no result.
    "ds-2": "unknown",
    # qwen/projects/-home-dev-todo: no tool_result answers the last call, call_4.
    "7d1c2b3a-aaaa-4bbb-8ccc-000000000042": "unknown",
    # rlm/observed/…/observability/runs.jsonl: the sink's run summaries, a list of runs, not a run.
    "observability/runs.jsonl": "unknown",
    # The five readers of this stop's merge, read by hand:
    # droid/sessions-2026-08 …2905: its last line is agent_turn_outcome "cancelled".
    "7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2905": "interrupted",
    # openhands/sdk-1.40 c0ffee…: base_state.json's execution_status is "paused".
    "c0ffee00-1234-4abc-8def-c0ffee00c0ff": "interrupted",
    # amp/threads-2026 …a002: it stops on the edit_file result, with no answer after it.
    "T-019cc0de-2222-7000-8000-00000000a002": "unknown",
    # amp/threads-2025 …a003: its last assistant message's state is "cancelled".
    "T-019a1b2c-3333-7000-8000-00000000a003": "interrupted",
    # hermes/snapshot-v2026.2: the snapshot ends on the terminal's result, no reply after it.
    "20260205_120000_abcdef": "unknown",
    # atif/mini-swe-v1.2: the last step runs mini-swe-agent's submit (echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT)
    # and no answer follows: unknown by the outcome rule (a submit command is not yet read as a completion).
    "c41d-mini-swe-fix-parser": "unknown",
}


def test_example_outcomes_in_sessions_json_and_rows(example_site):
    data = entries(example_site)
    rows = rows_by_id(soup(example_site / "index.html"))
    for entry in data:
        # every other example ends with the agent's answer after successful calls, and the
        # rlm runs say `"completed": true` in their final line: completed
        assert entry["outcome"] == EXAMPLE_OUTCOMES.get(entry["id"], "completed"), entry["id"]
        row = rows[entry["page"]]
        assert row["data-outcome"] == entry["outcome"]
        assert row["data-format"] == entry["format"]
        cell = row.select_one("td.outcome").get_text(" ", strip=True)
        # a symbol and a word, never colour alone
        assert cell in {"✓ completed", "✗ failed", "■ interrupted", "? unknown"}, cell
        assert cell.split(" ", 1)[1] == entry["outcome"]


def test_status_chips_count_the_rows(example_site):
    index = soup(example_site / "index.html")
    nav = index.select_one("nav.status-filter")
    assert nav["aria-label"] == "Filter by outcome" and nav.has_attr("hidden")  # JS reveals it
    chips = {a["href"]: int(a.select_one(".count").get_text().replace(",", "")) for a in nav.find_all("a")}
    rows = index.select("table.session-table tbody tr")
    counted = Counter(row["data-outcome"] for row in rows)
    # 108 test sessions, each not completed named in EXAMPLE_OUTCOMES with its reason: 10 interrupted,
    # 3 failed, 11 unknown; the other 84 end with the agent's answer after its calls came back
    # (each branch's fixtures added theirs: ATIF, Gemini, Qwen, the new agents, Claude 2.1.230 and
    # Codex 0.148, the verdict fixtures)
    assert counted == {"completed": 84, "failed": 3, "interrupted": 10, "unknown": 11}
    assert chips == {"#status=all": 108, "#status=completed": 84, "#status=failed": 3, "#status=interrupted": 10, "#status=unknown": 11}
    for href in chips:  # each chip is its own fragment's target, so the link is a real anchor
        assert index.find(id=href[1:]) is nav.find("a", href=href)


def test_failed_calls_and_other_errors_are_separate_columns(example_site):
    index = soup(example_site / "index.html")
    headings = [th.get_text(strip=True) for th in index.select("table.session-table thead th")]
    # what an audit asks first leads: title, outcome, cost, errors
    assert headings[:4] == ["Title", "Outcome", "Cost", "Errors"]
    assert {"Started", "Failed calls", "Other errors", "Tool calls", "Steps"} <= set(headings)
    rows = rows_by_id(index)
    for entry in entries(example_site):
        row = rows[entry["page"]]
        assert int(row.select_one("td.failed-calls").get_text()) == entry["failed_tool_calls"]
        assert int(row.select_one("td.other-errors").get_text()) == entry["errors"] - entry["failed_tool_calls"]
        assert int(row.select_one("td.errors")["data-value"]) == entry["errors"]
        # the calls the user declined beside the errors, never in them
        declined = row.select_one("td.errors .declined")
        assert (declined.get_text() if declined else None) == (f"+{entry['declined']}\xa0declined" if entry["declined"] else None)
    cards = {div.select_one(".label").get_text(strip=True): div.select_one(".figure").get_text(strip=True)
             for div in index.select("section.totals > div")}
    data = entries(example_site)
    assert cards["failed tool calls"] == str(sum(e["failed_tool_calls"] for e in data))
    assert cards["other errors"] == str(sum(e["errors"] - e["failed_tool_calls"] for e in data))
    # tests/data/claude/-home-dev-calc-demo/5b1e7c2a-….jsonl: line 11 a tool_result with
    # is_error true (one failed call), line 24 an isApiErrorMessage (an error that is no call)
    claude = next(e for e in entries(example_site) if e["id"] == "5b1e7c2a-3f4d-4e6a-9b8c-0d1e2f3a4b5c")
    assert (claude["failed_tool_calls"], claude["errors"]) == (1, 2)


def test_the_table_comes_before_charts_and_breakdowns(example_site):
    index = soup(example_site / "index.html")
    order = [tag for tag in index.find_all(True) if tag.name == "table" or "charts" in (tag.get("class") or [])]
    assert "session-table" in order[0]["class"], "the session table is the first table on the page"
    main_headings = [h.get_text(strip=True) for h in index.find_all("h2")]
    assert main_headings[0] == "Sessions"


def test_index_bytes_do_not_depend_on_the_build(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    site.build([DATA], first, site.BuildOptions(incremental=False))
    site.build([DATA], second, site.BuildOptions(incremental=False, jobs=2))
    assert (first / "index.html").read_bytes() == (second / "index.html").read_bytes()


# --- the real corpus -----------------------------------------------------------------------

def test_corpus_outcomes(built):
    out, document = built
    data = document["sessions"]
    assert {entry["outcome"] for entry in data} <= set(OUTCOMES)
    by_id = {entry["id"]: entry for entry in data}
    # claude/claude-code-log/session_b.jsonl line 3 (the last): a user message no one answered
    assert by_id["session_b"]["outcome"] == "unknown"
    # claude/codemie/incremental-subagents/turn-1.jsonl line 25 (the last): the assistant's Bash
    # tool_use, whose result never came
    assert by_id["e9fb405b-169f-40eb-9396-7e75076f045d"]["outcome"] == "unknown"
    # glue/constructed/1790946341220-77310-3q8w0zd: its last call was denied by the user (not a
    # failed call: "User denied tool execution"), and meta.json line 12 says "termination_status":
    # "completed" -- the log's own word wins
    assert by_id["1790946341220-77310-3q8w0zd"]["outcome"] == "completed"
    assert (by_id["1790946341220-77310-3q8w0zd"]["failed_tool_calls"], by_id["1790946341220-77310-3q8w0zd"]["declined"]) == (0, 1)
    rows = rows_by_id(soup(out / "index.html"))
    assert Counter(row["data-outcome"] for row in rows.values()) == Counter(entry["outcome"] for entry in data)
    for entry in data:
        assert rows[entry["page"]]["data-outcome"] == entry["outcome"]


def test_each_session_page_says_how_it_ended_as_the_index_does(example_site):
    rows = rows_by_id(soup(example_site / "index.html"))
    for entry in entries(example_site):
        header = soup(example_site / entry["page"]).select_one("dl.facts div[class^=outcome-]")
        assert header["class"] == [f"outcome-{entry['outcome']}"], entry["page"]
        # the same mark and word as the index row, never colour alone; an unknown one says why
        why = header.select_one(".outcome-why")
        if why is not None:
            assert entry["outcome"] == "unknown" and why.get_text().startswith("(")
            why.extract()
        assert header.dd.get_text(" ", strip=True) == rows[entry["page"]].select_one("td.outcome").get_text(" ", strip=True)


def test_summaries_from_separate_pickles_share_their_repeated_strings_and_say_the_same():
    """As summaries arrive from a worker (a pickle each), every one has its own copy of each
    key and model name; share_strings leaves one, and every summary as it was."""
    from synthetic_summaries import summaries

    rows = summaries(2)
    for row in rows:
        row.models = row.unpriced_models = ["claude-sonnet-4-5-20250929"]
        row.by_model = {"claude-sonnet-4-5-20250929": row.by_model.popitem()[1]}
        row.records = {"shown": {"user": 3, "assistant": 4}, "not_shown": {}}
        row.commands = {"run": 2, "failed": 1}
        row.redactions = {"aws_access_key": 1}
        row.files_changed = [{"path": "src/app.py", "added": 1, "removed": 0, "steps": [1]}]
    arrived = [pickle.loads(pickle.dumps(row)) for row in rows]

    def strings(summary):
        records = [*summary.records, *(kind for kinds in summary.records.values() for kind in kinds)]
        return [*summary.models, *summary.unpriced_models, *summary.by_model, *records, *summary.commands,
                *summary.redactions, *(key for changed in summary.files_changed for key in changed)]

    first, second = arrived
    assert not any(a is b for a, b in zip(strings(first), strings(second)))
    share_strings(arrived)
    assert all(a is b for a, b in zip(strings(first), strings(second)))
    assert [summary.to_json() for summary in arrived] == [row.to_json() for row in rows]
