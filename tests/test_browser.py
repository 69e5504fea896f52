"""What a person sees and clicks, in a real headless Chromium, from file:// with no server.

Uses Debian's chromium (installed by .ci/run), never a downloaded browser. Without it the
tests skip on a developer's machine but fail under CI, where they must run.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("chromium is missing under CI: .ci/run must install it")
        pytest.skip("no chromium on this machine (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def built(data_site) -> Path:
    return data_site


def watched_page(context):
    """A page that records console errors and every request that is not a local file."""
    page = context.new_page()
    page.errors, page.remote = [], []
    page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("request", lambda req: req.url.startswith("file:") or req.url.startswith("data:") or page.remote.append(req.url))
    return page


def test_index_to_session_to_output_to_step(browser, built):
    context = browser.new_context()
    page = watched_page(context)
    page.goto((built / "index.html").as_uri())
    assert page.locator("table.session-table tbody tr").count() > 0
    # the stylesheet loaded from file:// under the page's Content-Security-Policy
    assert page.evaluate("getComputedStyle(document.querySelector('.topbar')).position") == "sticky"

    # follow the first session with a collapsed tool output
    links = page.locator("table.session-table tbody a")
    for index in range(links.count()):
        page.goto((built / "index.html").as_uri())
        page.locator("table.session-table tbody a").nth(index).click()
        page.wait_for_load_state()
        if page.locator("details.output:not([open])").count():
            break
    else:
        pytest.fail("no session in tests/data has a collapsed tool output to open")
    assert "/sessions/" in page.url

    output = page.locator("details.output:not([open])").first.element_handle()
    text = output.query_selector("pre.output-text")
    assert not text.is_visible()
    output.query_selector("summary").click()
    assert text.is_visible()

    page.goto(page.url.split("#")[0] + "#step-3")
    step = page.locator("#step-3")
    assert step.is_visible()
    assert step.evaluate("el => el.matches(':target')")
    box = step.bounding_box()
    assert box is not None and 0 <= box["y"] < page.viewport_size["height"]

    assert page.errors == []
    assert page.remote == []
    context.close()


def test_pages_work_with_javascript_off(browser, built):
    context = browser.new_context(java_script_enabled=False)
    page = watched_page(context)
    page.goto((built / "index.html").as_uri())
    first = page.locator("table.session-table tbody a").first
    first.click()
    page.wait_for_load_state()
    assert page.locator("#step-1").is_visible()
    assert page.locator("li.step").count() >= 1
    assert page.remote == []
    context.close()


def test_sorting_the_index_by_cost_with_javascript(browser, built):
    context = browser.new_context()
    page = watched_page(context)
    page.goto((built / "index.html").as_uri())
    header = page.locator("table.session-table th", has_text="Steps")
    column = page.locator("table.session-table th").all_inner_texts().index("Steps") + 1
    header.click()
    values = page.locator(f"table.session-table tbody tr td:nth-child({column})").all_inner_texts()
    assert [int(v) for v in values] == sorted(int(v) for v in values)
    header.click()
    values = page.locator(f"table.session-table tbody tr td:nth-child({column})").all_inner_texts()
    assert [int(v) for v in values] == sorted((int(v) for v in values), reverse=True)
    assert page.errors == []
    context.close()


def test_an_exported_replay_runs_its_inline_script_from_file(browser, tmp_path):
    from typer.testing import CliRunner

    from replay_site.cli.app import app

    out = tmp_path / "replay.html"
    data = Path(__file__).parent / "data" / "glue"
    assert CliRunner().invoke(app, ["export", "--last", "-s", str(data), "-o", str(out)]).exit_code == 0
    context = browser.new_context()
    page = watched_page(context)
    page.goto(out.as_uri())
    # the inline script ran (CSP admitted its hash): it reveals the toolbar and its button works
    assert page.locator(".steps details:not([open])").count() > 0
    page.locator("#expand-all").click()
    closed = page.locator(".steps details:not([open])").count()
    assert closed == 0
    assert page.errors == [] and page.remote == []
    context.close()
