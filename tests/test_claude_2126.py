"""Claude Code 2.1.2xx records, from the hand-written fixture tests/data/claude/-home-dev-v2126 (version 2.1.230).

Main file c2126…2126.jsonl, line by line:
  1 permission-mode default   2 mode normal   3 user "Rename the config loader" (promptSource typed)
  4 assistant msg_1 text + Agent call, stop_reason tool_use, usage 100 in / 40 out with iterations, effort high
  5 its result (agentId s1)   6 permission-mode plan (a change)   7 user "also update the docs" (promptSource queued)
  8 assistant msg_2, end_turn, 120 / 30 with iterations, effort xhigh
  9 user "The background build finished." (promptSource system)   10 mode normal, 11 permission-mode plan (repeats)
Subagent subagents/agent-s1.jsonl: user prompt; msg_s1 over two block lines, both with the early snapshot usage
(10 in / 1 out, stop_reason null, no iterations: it never got its final record); its Grep result; msg_s2 end_turn
20 / 50 with iterations. A background copy c2126…00bb.jsonl: sessionKind "bg" on its lines, an sdk prompt, one reply.

Prices (claude-sonnet-4-5, genai-prices: $3 / MTok input, $15 / MTok output):
  msg_1 100*3 + 40*15 = 900 µ$; msg_2 120*3 + 30*15 = 810 µ$; msg_s1 10*3 + 1*15 = 45 µ$ (a lower bound);
  msg_s2 20*3 + 50*15 = 810 µ$. Session with its subagent: 2,565 µ$, a lower bound ("≥ $0.0026").
"""
from __future__ import annotations

import pytest

from replay_site.costs import price_session
from replay_site.discover import find_sources
from replay_site.figures.summary import summarize
from replay_site.pages.formatting import summary_cost
from replay_site.readers.claude.reader import READER

MAIN = "c2126000-0000-4000-8000-000000002126"
COPY = "c2126000-0000-4000-8000-0000000000bb"


@pytest.fixture
def sessions(data):
    problems: list = []
    sources = find_sources(data / "claude/-home-dev-v2126", [READER], problems)
    assert problems == []
    found = {}
    for source in sources:
        [session] = READER.read(source)
        price_session(session)
        found[session.id] = session
    assert set(found) == {MAIN, COPY}
    return found


def facts(session):
    return {fact.label: fact.value for fact in session.facts}


def test_mode_and_permission_mode_lines_are_session_facts_not_unknown_kinds(sessions):
    session = sessions[MAIN]
    assert facts(session)["Permission mode"] == "default → plan"  # lines 1, 6 (11 repeats line 6)
    assert facts(session)["Mode"] == "normal"  # lines 2 and 10 say the same
    assert session.records["unknown"] == {}
    assert session.records["shown"]["permission-mode"] == 3 and session.records["shown"]["mode"] == 2
    assert not [p for p in session.problems if "unknown kind" in p.message]
    # The change on line 6 is a step where it happened, between the agent's reply and the queued prompt.
    titles = [step.title for step in session.steps]
    assert titles.index("Permission mode changed to plan") == 2
    assert titles.count("Permission mode changed to plan") == 1  # line 11 repeats it: no second step


def test_prompt_source_says_who_wrote_a_prompt(sessions):
    steps = sessions[MAIN].steps
    typed, queued, system = (step for step in steps if step.text in
                             ("Rename the config loader", "also update the docs", "The background build finished."))
    assert typed.kind == "user" and typed.title is None
    assert queued.kind == "user" and queued.title.startswith("Queued prompt")
    assert system.kind == "context" and system.collapsed and "not typed" in system.title
    assert sessions[MAIN].title == "Rename the config loader"
    # An sdk prompt is titled as such and still the session's request (its title).
    copy = sessions[COPY]
    assert copy.steps[0].title == "Prompt sent through the SDK"
    assert copy.title == "Summarise the changes"


def test_session_kind_marks_a_background_copy(sessions):
    assert sessions[COPY].session_kind == "bg"
    assert "background copy" in facts(sessions[COPY])["Session kind"]
    assert sessions[MAIN].session_kind is None and "Session kind" not in facts(sessions[MAIN])


def test_effort_is_read_in_the_order_it_took_effect(sessions):
    assert facts(sessions[MAIN])["Effort"] == "high → xhigh"


def test_a_request_without_its_final_usage_record_is_a_lower_bound(sessions):
    session = sessions[MAIN]
    [child] = session.children
    first, second = [step for step in child.steps if step.kind == "assistant"]
    assert first.usage.partial and first.cost.partial and first.cost.usd == pytest.approx(45e-6)
    assert not second.usage.partial and second.cost.usd == pytest.approx(810e-6)
    assert "1 request(s) never got their final usage record" in facts(child)["Usage incomplete"]
    assert not any(step.usage and step.usage.partial for step in session.steps)  # the main file's are final
    total = session.cost_with_children
    assert total.usd == pytest.approx(2565e-6) and total.partial_steps == 1 and total.is_lower_bound
    summary = summarize(session, "Claude Code", "p.html", "p.html")
    assert summary.partial_steps == 0 and summary.partial_steps_with_children == 1
    shown = summary_cost(summary, with_children=True)
    assert shown.text == "≥ $0.0026" and "incomplete" in shown.note
    assert summary_cost(summary).text == "≈ $0.0017"  # the main file's own two responses, complete


def test_old_logs_without_final_usage_records_are_not_called_incomplete(data):
    """Versions before final usage records (no line has usage iterations) keep their figures as they were."""
    sources = find_sources(data / "claude/-home-dev-v21", [READER], [])
    [session] = READER.read(sources[0])
    assert not any(step.usage and step.usage.partial for each in session.walk() for step in each.steps)


def test_the_copy_kind_and_the_lower_bound_reach_sessions_json_and_the_pages(data_site):
    import json

    from bs4 import BeautifulSoup

    entries = {entry["id"]: entry for entry in json.loads((data_site / "sessions.json").read_text())["sessions"]}
    assert entries[COPY]["session_kind"] == "bg" and entries[MAIN]["session_kind"] is None
    main, child = entries[MAIN], entries[f"{MAIN}-agent-s1"]
    assert (main["partial_steps"], main["partial_steps_with_children"], main["cost_with_children_is_lower_bound"]) == (0, 1, True)
    assert child["partial_steps"] == 1 and child["cost_is_lower_bound"]
    page = BeautifulSoup((data_site / child["page"]).read_bytes(), "html.parser")
    assert "never got their final usage record" in page.get_text()
    index = BeautifulSoup((data_site / "index.html").read_bytes(), "html.parser")
    [cell] = [row.select_one("td.cost .cost") for row in index.select("table.session-table tbody tr")
              if row.get("data-page", "").endswith(child["page"].rpartition("/")[2]) or child["page"] in str(row)]
    assert cell.get_text() == "≥ $0.0009" and "incomplete" in cell["title"]
