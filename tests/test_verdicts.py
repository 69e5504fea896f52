"""The verdict (the "what went wrong" card's pick, how it came out, the outcome) against
sessions labelled by hand: tests/verdict_labels.json, written from reading each session
before the rules were changed to agree (issue 30). Each label says why in its `reason`.

The fixtures' labels run on a bare clone; the corpus labels skip without ../shared/corpus.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sitetools import soup

from replay_site.figures.failures import what_went_wrong
from replay_site.figures.parts import around_error
from replay_site.figures.summary import outcome
from replay_site.load import ReadOptions, iter_sessions
from replay_site.model import Session, Step, ToolCall
from replay_site.pages import views_audit

DATA = Path(__file__).parent / "data"
LABELS = json.loads((Path(__file__).parent / "verdict_labels.json").read_text())  # beside tests/data: labels, not a log


def _sessions(root: Path) -> dict[str, Session]:
    found: dict[str, Session] = {}

    def walk(sessions):
        for session in sessions:
            found[session.id] = session
            walk(session.children)

    walk(iter_sessions([root], ReadOptions()))
    return found


def verdict(session: Session) -> dict:
    """The verdict in the labels' terms."""
    wrong = what_went_wrong(session)
    first = wrong.first if wrong else None
    return {
        "mattered": first.step if first else None,
        "probes": sorted({each.step for each in wrong.probes}) if wrong else [],
        "refusals": [each.step for each in wrong.refusals] if wrong else [],
        "recovery": wrong.recovery if wrong else None,
        "fixed_at": wrong.passed.step if wrong and wrong.passed and first else None,
        "then": wrong.next.step if wrong and wrong.next and first else None,
        "outcome": outcome(session),
    }


def _wanted(label: dict) -> dict:
    wanted = {key: label[key] for key in ("mattered", "probes", "refusals", "recovery", "fixed_at", "then", "outcome")}
    wanted["probes"] = sorted(set(wanted["probes"]))
    return wanted


@pytest.fixture(scope="module")
def fixture_sessions() -> dict[str, Session]:
    """Every labelled fixture, read from its label's folder (format/producer-version)."""
    found: dict[str, Session] = {}
    for root in sorted({Path(*Path(label["source"]).parts[:2]) for label in LABELS["fixtures"].values()}):
        found |= _sessions(DATA / root)
    return found


@pytest.mark.parametrize("session_id", sorted(LABELS["fixtures"]))
def test_fixture_verdict_agrees_with_its_label(fixture_sessions, session_id):
    label = LABELS["fixtures"][session_id]
    assert verdict(fixture_sessions[session_id]) == _wanted(label), label["reason"]


def test_corpus_verdicts_agree_with_the_labels(corpus):
    sessions = _sessions(corpus)
    disagree = {}
    for session_id, label in LABELS["corpus"].items():
        got = verdict(sessions[session_id])
        if got != _wanted(label):
            disagree[session_id] = (got, label["reason"])
    assert not disagree
    for session_id, label in LABELS["outcomes"].items():
        assert outcome(sessions[session_id]) == label["outcome"], label["reason"]


def test_probe_before_a_failing_test_card(fixture_sessions):
    # c5…01: #2 rg of src/legacy (exit 2, no such folder), #3 pytest (exit 1, AssertionError),
    # #4 Edit, #5 the same pytest passes: the card names pytest with its description, the Edit
    # as Then (once: not again as "First change after it"), #5 as passing again, #2 as a probe.
    card = views_audit.card_view(what_went_wrong(fixture_sessions["c5000000-0000-4000-8000-000000000001"]), lambda n: f"#step-{n}")
    assert card.verdict == "Failed at #3, fixed at #5."
    assert (card.step.number, card.what, card.title, card.action) == (3, "Bash exit 1", "Run the date tests", "pytest -q tests/test_dates.py")
    assert card.tail.splitlines()[-1] == "1 failed, 2 passed in 0.02s"
    assert (card.next[0].number, card.fixed, card.passed[0].number) == (4, None, 5)
    assert [(jump.number, action) for jump, action in card.probes] == [(2, "rg -n parse_date src/legacy")]
    assert card.recovered and card.refusals == []


def test_refusal_is_its_own_kind(fixture_sessions):
    # c5…02: the user refused `rm -rf build` at #2; nothing failed. Not "Failed at #2", not an
    # error group, and --around-error has no failure to centre on.
    session = fixture_sessions["c5000000-0000-4000-8000-000000000002"]
    wrong = what_went_wrong(session)
    card = views_audit.card_view(wrong, lambda n: f"#step-{n}")
    assert card.verdict == "Declined by the user at #2, nothing else failed."
    assert card.step is None and card.groups == [] and card.recovered
    assert [(jump.number, action) for jump, action in card.refusals] == [(2, "rm -rf build")]
    with pytest.raises(ValueError, match="no failure that mattered .*declined #2"):
        around_error(session)


def test_then_is_never_the_passing_run():
    # A code cell fails at #1 and its retry at #2 succeeds: #2 is "Passing again", and no
    # "Then" names it a second time.
    steps = [Step("assistant", number=1, tool_calls=[ToolCall("ipython", code="x = 1 / 0", is_error=True, output="ZeroDivisionError")]),
             Step("assistant", number=2, tool_calls=[ToolCall("ipython", code="x = 1 / 1")]),
             Step("assistant", number=3, text="x is 1.")]
    wrong = what_went_wrong(Session("s", "test", steps=steps))
    assert (wrong.first.step, wrong.passed.step, wrong.next, wrong.recovery) == (1, 2, None, "fixed")


def test_answered_and_not_recovered():
    # A failed build not run again: "answered" when the session ends with the agent's answer,
    # "not recovered" only when the session ends on the failure itself.
    build = ToolCall("Bash", code="make", language="bash", is_error=True, exit_code=2, output="make: *** [all] Error 1")
    answered = Session("a", "test", steps=[Step("user", number=1, text="build it"), Step("assistant", number=2, tool_calls=[build]),
                                           Step("assistant", number=3, text="The build fails in the linker; I stopped there.")])
    ends_on_it = Session("b", "test", steps=[Step("user", number=1, text="build it"), Step("assistant", number=2, tool_calls=[build])])
    assert what_went_wrong(answered).recovery == "answered"
    card = views_audit.card_view(what_went_wrong(answered), lambda n: "")
    assert card.verdict == "Failed at #2; ended with an answer, #2 was not run again." and card.recovered
    assert what_went_wrong(ends_on_it).recovery == "not_recovered"
    assert views_audit.card_view(what_went_wrong(ends_on_it), lambda n: "").verdict == "Failed at #2, not recovered."


def test_failure_made_moot_in_its_step_is_a_probe():
    # Two calls in one step: the same command fails, then succeeds (a retry with a wider
    # sandbox): not the headline; the later failing test is.
    steps = [Step("assistant", number=1, tool_calls=[
        ToolCall("Bash", code="python tool.py", language="bash", exit_code=1, output="Traceback ...\nOSError"),
        ToolCall("Bash", code="python tool.py --retry", language="bash", exit_code=0, output="ok")]),
        Step("assistant", number=2, tool_calls=[ToolCall("Bash", code="cargo test", language="bash", exit_code=101, output="test result: FAILED")])]
    wrong = what_went_wrong(Session("s", "test", steps=steps))
    assert wrong.first.step == 2 and [each.step for each in wrong.probes] == [1]


def test_card_on_the_page_names_the_failure_and_the_probe(tmp_path):
    from replay_site.pipeline import stages as site

    site.build([DATA / "claude/-home-dev-verdicts"], tmp_path, site.BuildOptions())
    page = next(path for path in (tmp_path / "sessions").glob("c5000000-0000-4000-8000-000000000001*.html"))
    card = soup(page).select_one("#what-went-wrong")
    assert card.select_one(".verdict").get_text(strip=True) == "Failed at #3, fixed at #5."
    assert "Run the date tests" in card.select_one(".call-title").get_text()
    assert [li.get_text(" ", strip=True) for li in card.select(".probes li")] == ["#2 rg -n parse_date src/legacy"]


def _bash_descriptions(log: Path) -> list[str]:
    """Every Bash tool_use's `description` in a Claude Code log, from the raw lines."""
    found = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") == "Bash":
                described = (block.get("input") or {}).get("description")
                if isinstance(described, str) and described.strip():
                    found.append(" ".join(described.split()))
    return found


def test_every_claude_bash_description_is_on_its_page_and_in_search(built, corpus):
    out, document = built
    checked = 0
    for entry in document["sessions"]:
        if entry["format"] != "claude":
            continue
        wanted = _bash_descriptions(corpus / entry["source"])
        slug = Path(entry["page"]).stem
        pages = [out / entry["page"], *sorted((out / "sessions").glob(f"{slug}/*.html"))]
        titles = [span.get_text() for page in pages if page.exists() for span in soup(page).select(".tool-call .call-title")]
        assert sorted(titles) == sorted(wanted), entry["id"]
        shard = (out / "assets/search" / f"{slug}.js").read_text(encoding="utf-8")
        entries = json.loads(shard.split("=", 2)[-1].rstrip().rstrip(";"))
        searched = " ".join(str(part) for found in entries for part in found)
        assert [text for text in wanted if text not in searched] == [], entry["id"]
        checked += len(wanted)
    # the corpus's Claude Code Bash calls with a description: 39 in session-196820da, 6 in
    # incremental-subagents/turn-1, 3 in its agent-a485154, 1 in 4c2ddfdc, 1 in representative_messages
    assert checked == 50


def test_a_log_stopping_after_a_tool_result_says_it_stopped_mid_work(tmp_path):
    # c5…03: the only answer is "Running ruff over the project." with the ruff call, whose
    # result is the last line: unknown, and the header says why
    from replay_site.pipeline import stages as site

    site.build([DATA / "claude/-home-dev-verdicts"], tmp_path, site.BuildOptions())
    page = soup(next((tmp_path / "sessions").glob("c5000000-0000-4000-8000-000000000003*.html")))
    facts = page.select_one(".outcome-unknown dd").get_text(" ", strip=True)
    assert facts == "? unknown (stopped mid-work: no answer after the last tool result; it may still be running)"
    assert page.find(id="what-went-wrong") is None  # nothing failed


def test_export_around_error_centres_on_the_failure_that_mattered(corpus):
    # Codex 019e1625: the card's failure is npm test at #47 (not the rg probe at #24): the
    # window is 5 steps before it and 10 after
    sessions = _sessions(corpus / "codex")
    assert around_error(sessions["019e1625-789d-76c0-80ab-3724b5ddb799"]) == range(42, 58)


def test_a_rerun_whose_result_never_came_is_no_fix(fixture_sessions):
    # tests/data/qwen/projects 7d1c…42: python todo.py --done 1 fails at #3 (NameError), the same
    # command is run at #9 and the log stops before its result: not "fixed at #9"
    wrong = what_went_wrong(fixture_sessions["7d1c2b3a-aaaa-4bbb-8ccc-000000000042"])
    assert (wrong.first.step, wrong.passed, wrong.unanswered.step) == (3, None, 9)
    card = views_audit.card_view(wrong, lambda number: f"#step-{number}")
    assert card.verdict == "Failed at #3, run again at #9, whose result never came."


def test_the_card_tail_shows_the_assertion_when_the_output_ends_on_timings(corpus):
    # rollout 019e1625 #47: vitest's output ends on its timing summary and a code frame (no line
    # of its last six names a failure); the tail starts at the AssertionError instead
    (session,) = iter_sessions([corpus / "codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"], ReadOptions())
    tail = what_went_wrong(session).first.tail
    assert tail[0] == "AssertionError: expected undefined to deeply equal { auto: true, prune: true, …(1) }" and len(tail) == 6


def test_the_card_tail_keeps_a_last_line_that_names_the_failure():
    from replay_site.figures.failures import _tail

    # pytest: its last lines name the failure ("1 failed"): kept as they are
    output = "E   assert 1 == 2\n\ntests/x.py:3: AssertionError\n=== short test summary info ===\nFAILED tests/x.py::t\n1 failed in 0.02s"
    assert _tail(output) == ["E   assert 1 == 2", "tests/x.py:3: AssertionError", "=== short test summary info ===",
                             "FAILED tests/x.py::t", "1 failed in 0.02s"]
