"""Hostile logs of every format build into pages where every payload is literal text.

Checked twice: parsed with BeautifulSoup (no element or attribute injected, payload text
present literally, no raw control characters), and loaded in headless Chromium from file://
(a payload that ran would set `data-pwned` on the root element).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from hostile import FOLDER, LITERAL, build_hostile_logs
from test_browser import browser  # noqa: F401 - the shared Chromium fixture

from replay_site.pipeline import stages as site

FORMATS = ("claude", "codex", "glue", "gptme", "rlm")
INJECTED_TAGS = {"iframe", "object", "embed", "textarea", "xmp", "plaintext", "form", "base", "title", "style", "img"}
UNSAFE_URL = re.compile(r"^\s*(?:javascript|vbscript|data:text)", re.I)
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202e\u200b\U000e0041]")


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> tuple[Path, site.BuildResult]:
    logs = build_hostile_logs(tmp_path_factory.mktemp("hostile-logs"))
    out = tmp_path_factory.mktemp("hostile-site")
    return out, site.build([logs], out, site.BuildOptions())


def _pages(out: Path) -> list[Path]:
    return sorted(out.rglob("*.html"))


def test_every_format_is_built_despite_the_payloads(hostile_site):
    out, result = hostile_site
    assert {summary.format for summary in result.summaries} >= set(FORMATS)
    assert all(problem.message for problem in result.problems)  # odd lines are reported, not fatal
    assert len(_pages(out)) > len(FORMATS)


def _own_search_form(tag) -> bool:
    """The theme's search box: a form that submits nowhere (no action), scripted by app.js."""
    return tag.name == "form" and tag.get("role") == "search" and tag.get("class") == ["search"] and not tag.get("action")


def test_no_element_or_attribute_is_injected(hostile_site):
    out, _ = hostile_site
    for page in _pages(out):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for tag in soup.find_all(True):
            assert not [name for name in tag.attrs if name.lower().startswith("on")], (page, tag.name)
            for name in ("href", "src", "action", "formaction", "xlink:href"):
                assert not UNSAFE_URL.match(str(tag.get(name) or "")), (page, tag)
            if tag.name in INJECTED_TAGS and tag.name != "title" and not _own_search_form(tag):
                assert tag.name == "img" and (tag.get("src") or "").startswith("data:image/"), (page, tag)
        assert len([title for title in soup.find_all("title") if not title.find_parent("svg")]) <= 1, page
        for script in soup.find_all("script"):
            assert "pwned" not in script.get_text(), page


def test_payloads_show_as_literal_text(hostile_site):
    out, result = hostile_site
    for summary in result.summaries:
        if not summary.steps:
            continue
        soup = BeautifulSoup((out / summary.page).read_text(encoding="utf-8"), "html.parser")
        text = soup.get_text()
        assert LITERAL in text, summary.page  # shown, not parsed as markup
        assert "{{7*7}}" in text and "{% if 1 %}T{% endif %}" in text, summary.page  # templates not evaluated
    index = BeautifulSoup((out / "index.html").read_text(encoding="utf-8"), "html.parser").get_text()
    assert LITERAL in index


def test_no_raw_control_characters_reach_any_file(hostile_site):
    out, _ = hostile_site
    for path in sorted(out.rglob("*")):
        if path.is_file() and path.suffix in (".html", ".json", ".js", ".txt"):
            found = CONTROL.search(path.read_text(encoding="utf-8"))
            assert not found, (path, repr(found.group(0)) if found else None)


def test_the_folder_name_payload_is_shown_not_run(hostile_site):
    out, result = hostile_site
    assert all(summary.source.startswith(FOLDER) for summary in result.summaries)
    shown = [page for page in _pages(out) if FOLDER in BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").get_text()]
    assert shown, "the source path (with its hostile folder name) appears as text on some page"


def test_a_line_nested_900_levels_deep_costs_no_session(tmp_path):
    logs = build_hostile_logs(tmp_path / "logs", depth=450)
    result = site.build([logs], tmp_path / "site", site.BuildOptions())
    assert {summary.format for summary in result.summaries} >= set(FORMATS)
    assert not [problem for problem in result.problems if "Recursion" in problem.message]


def test_no_payload_runs_in_chromium(browser, hostile_site):
    out, _ = hostile_site
    context = browser.new_context()
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for html in _pages(out):
        page.goto(html.as_uri())
        page.wait_for_load_state("load")
        for summary in page.locator("details").all()[:20]:  # open collapsed outputs too
            summary.evaluate("node => node.open = true")
        page.wait_for_timeout(50)
        assert page.evaluate("document.documentElement.dataset.pwned") is None, html
        assert page.title().count("pwned") == 0 or "<script>" in page.title(), html
    assert dialogs == []
    context.close()


def test_terminal_commands_print_hostile_logs_without_raw_controls(tmp_path):
    from typer.testing import CliRunner

    from replay_site.cli.app import app

    runner = CliRunner()
    logs = build_hostile_logs(tmp_path / "logs")
    raw = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e\u200b\U000e0041]")
    shown = 0
    for log in sorted((logs / FOLDER).rglob("*.jsonl")):
        if "utf16" in log.parts or "subagents" in log.parts:
            continue
        result = runner.invoke(app, ["show", str(log), "--max-output", "5000"])
        assert result.exception is None or isinstance(result.exception, SystemExit), (log, result.exception)
        assert not raw.search(result.stdout + result.stderr), log
        shown += result.exit_code == 0
    assert shown >= len(FORMATS)
    result = runner.invoke(app, ["list", str(logs)])
    assert result.exit_code == 0 and not raw.search(result.stdout + result.stderr)
    result = runner.invoke(app, ["check", str(logs), "--max-errors", "0"])
    assert result.exit_code in (0, 1) and not raw.search(result.stdout + result.stderr)
