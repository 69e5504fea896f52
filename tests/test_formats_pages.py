"""What a reader of the site sees of the 2026 records: the v21 Claude fixture and the Codex
agents-2026 fixture built into one site, its pages parsed with BeautifulSoup."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sitetools import external_references, soup
from test_browser import browser, watched_page  # noqa: F401  (the module's chromium fixture)

from replay_site.pipeline import stages as site

CLAUDE = "c2100000-0000-4000-8000-000000000021"
CODEX_CHILD = "01a05c69-58b8-7000-8000-00000000c001"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    data = Path(__file__).parent / "data"
    out = tmp_path_factory.mktemp("formats-site")
    site.build([data / "claude/-home-dev-v21", data / "codex/agents-2026"], out, site.BuildOptions(incremental=False))
    index = json.loads((out / "sessions.json").read_text())
    sessions = index["sessions"] if isinstance(index, dict) else index
    return out, {entry["id"]: entry for entry in sessions}


def page_of(built, session_id):
    out, entries = built
    return soup(out / entries[session_id]["page"])


def call_named(page, name):
    return next(call for call in page.select(".tool-call") if call.select_one(".tool-name").get_text() == name)


def test_pull_request_is_a_link_in_the_header_and_in_sessions_json(built):
    _, entries = built
    assert entries[CLAUDE]["pull_requests"] == [{"number": 142, "url": "https://github.com/dev/v21/pull/142", "repository": "dev/v21"}]
    assert entries[CLAUDE]["title"] == "Fix flaky retry test"
    link = page_of(built, CLAUDE).select_one("header a.pull-request")
    assert (link.get_text(), link["href"]) == ("#142 dev/v21", "https://github.com/dev/v21/pull/142")


def test_workflow_and_spawn_calls_link_to_their_children_pages(built):
    out, entries = built
    page = page_of(built, CLAUDE)
    workflow = call_named(page, "Workflow").select_one(".child-link a")
    assert workflow["href"].endswith(entries[f"{CLAUDE}-agent-w1"]["page"].rpartition("/")[2])
    assert entries[f"{CLAUDE}-agent-w1"]["parent"] == CLAUDE
    assert not [e for e in entries.values() if e["id"].endswith("-agent-w1") and e["parent"] is None]
    codex_parent = entries[CODEX_CHILD]["parent"]
    spawn = call_named(page_of(built, codex_parent), "spawn_agent").select_one(".child-link a")
    assert spawn["href"].endswith(entries[CODEX_CHILD]["page"].rpartition("/")[2])
    assert entries[CODEX_CHILD]["title"] == "Lint src/ with ruff"


def test_a_call_without_result_says_so_instead_of_a_tick(built):
    wakeup = call_named(page_of(built, CLAUDE), "ScheduleWakeup")
    status = wakeup.select_one(".status").get_text(" ", strip=True)
    assert status == "no result in the log" and "✓" not in status
    assert call_named(page_of(built, CLAUDE), "Monitor").select_one(".status").get_text(strip=True) == "✓"


def test_artifact_is_a_link_and_a_markdown_image_a_labelled_link(built):
    page = page_of(built, CLAUDE)
    published = call_named(page, "Artifact").select_one(".published a")
    assert published["href"] == "https://claude.ai/a/xyz"
    answer = page.find(lambda tag: tag.name == "p" and "Done: PR #142 opened." in tag.get_text())
    badge = answer.find("a", href="https://ci.example/badge.svg")
    assert badge.get_text() == "CI badge"
    assert "!" not in answer.get_text().replace("opened.", "")  # no stray "!" before the link
    assert not page.find("img", src="https://ci.example/badge.svg")
    assert external_references(page) == []


def test_in_chromium_the_pr_link_shows_the_image_is_never_fetched_and_the_workflow_link_leads_to_its_agent(browser, built):
    out, entries = built
    context = browser.new_context()
    page = watched_page(context)
    page.goto((out / entries[CLAUDE]["page"]).as_uri())
    pull_request = page.locator("header a.pull-request")
    assert pull_request.is_visible() and pull_request.inner_text() == "#142 dev/v21"
    assert page.get_by_role("link", name="CI badge").is_visible()
    page.locator(".tool-call", has=page.locator("code.tool-name", has_text="Workflow")).locator(".child-link a").click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == "Verify fix 1"
    assert page.remote == [] and page.errors == []  # the badge image was never requested
    context.close()
