"""The budget of sibling pages a session page links (paging.SIBLING_LINKS, issue 17), on a
small session made here, one step to a page, so that its 20 steps are 20 pages:

  #1 user prompt                          #2-#6 Read of a missing file, is_error (5 failures)
  #7 Bash `pytest`, exit 1                #8 Bash `ls`, ok          #9 Edit a.py
  #10 Bash `pytest`, exit 0               #11-#19 Bash `pytest`, exit 1 (9 failures)
  #20 assistant text

What went wrong (figures/failures.py): the failed test run #7 (the failed reads are probes,
the first named on the card: #2), then #8, first change #9, passing again at #10; groups Read
error × 5 (#2-#6) and Bash exit 1 × 10 (#7-#19).
"""
from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup
from sitetools import render_whole

from replay_site.figures.summary import summarize
from replay_site.model import FileChange, Session, Step, ToolCall
from replay_site.pages import paging
from replay_site.pages.render import PageNav, Renderer


def bash(command: str, code: int) -> ToolCall:
    return ToolCall("Bash", code=command, language="bash", exit_code=code, is_error=bool(code))


def twenty_steps() -> Session:
    steps = [Step("user", text="Make the tests pass.")]
    steps += [Step("assistant", tool_calls=[ToolCall("Read", arguments={"file_path": f"missing_{k}.py"}, is_error=True)]) for k in range(5)]
    steps += [Step("assistant", tool_calls=[bash("pytest", 1)]), Step("assistant", tool_calls=[bash("ls", 0)]),
              Step("assistant", tool_calls=[ToolCall("Edit", changes=[FileChange("a.py", diff="+x\n")])]),
              Step("assistant", tool_calls=[bash("pytest", 0)])]
    steps += [Step("assistant", tool_calls=[bash("pytest", 1)]) for _ in range(9)]
    steps.append(Step("assistant", text="Done."))
    session = Session("budget", "claude", steps=steps)
    session.number_steps()
    return session


@pytest.fixture
def first_page(monkeypatch) -> BeautifulSoup:
    # one step to a page; a pager of the first page, its neighbour and the last (no landmarks:
    # 20 pages / 1 is a stride of 20); 8 sibling pages at most
    monkeypatch.setattr(paging, "PAGE_STEPS", 1)
    monkeypatch.setattr(paging, "NEIGHBOURS", 1)
    monkeypatch.setattr(paging, "LANDMARKS", 1)
    monkeypatch.setattr(paging, "SIBLING_LINKS", 8)
    session = twenty_steps()
    summary = summarize(session, "Claude Code", "sessions/x.html", "sessions/x.html")
    files = render_whole(Renderer(), session, summary, PageNav("x"))
    assert sum(name.startswith("sessions/x") and name.endswith(".html") for name in files) == 20
    return BeautifulSoup(files["sessions/x.html"], "html.parser")


def linked_pages(page: BeautifulSoup) -> set[int]:
    return {int(m.group(1)) for a in page.find_all("a", href=True) if (m := re.match(r"x/(\d+)\.html", a["href"]))}


def test_the_budget_goes_to_the_pager_then_the_card_and_each_groups_first_and_last(first_page):
    page = first_page
    # the pager: pages 2 and 20; the card: #7, #8, #9, #10 and its first probe #2 (linked
    # already); the groups' ends: #6 and #19 (their first steps, #2 and #7, are linked already):
    # 8 pages, the whole budget
    assert linked_pages(page) == {2, 20, 7, 8, 9, 10, 6, 19}
    card = page.find(id="what-went-wrong")
    assert [a["href"] for a in card.select("dl.failure a")] == ["x/7.html#step-7", "x/8.html#step-8", "x/9.html#step-9", "x/10.html#step-10", "x/2.html#step-2"]
    groups = [[a["href"] for a in tr.find_all("a")] for tr in card.select("table.error-groups tbody tr")]
    assert sorted(groups) == [["x/2.html#step-2", "x/6.html#step-6"], ["x/7.html#step-7", "x/19.html#step-19"]]
    assert not card.select(".step-ref")


def test_entries_beyond_the_budget_stay_as_text_with_their_step_number(first_page):
    page = first_page
    # the header's error list comes before the card on the page, but is linked after it: its
    # entries on pages 3-5 and 11-18 are text, those on budgeted pages links
    entries = page.select("ul.error-list li")
    # each names what failed: the tool and its path; the failure that mattered first (the card's:
    # pytest's at #7, a check, outranks the reads of missing files, probes), then the rest in order
    assert [li.get_text() for li in entries][:3] == ["step 7: pytest failed (exit 1)", "step 2: Read missing_0.py failed", "step 3: Read missing_1.py failed"]
    linked = [int(li.a["href"].rpartition("-")[2]) for li in entries if li.a]
    text = [int(li.span["data-step-link"]) for li in entries if li.span]
    assert linked == [7, 2, 6, 19] and text == [3, 4, 5, *range(11, 19)]
    # the ledger's commands: #7, #8, #10 and #19 linked, the other failures text
    steps = [(td.a or td.span) for td in page.select("#ledger-commands tbody td:last-child")]
    assert [(tag.name, tag.get_text()) for tag in steps][:5] == [("a", "#7"), ("a", "#8"), ("a", "#10"), ("span", "#11"), ("span", "#12")]
