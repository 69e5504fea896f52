"""Reading a site in a real headless Chromium from file://: long sessions across pages, keys,
search, print, phones, accessibility (axe-core) in both themes, and the README screenshots
(written to docs/screenshots/ when UPDATE_SCREENSHOTS=1).
"""
from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
from gen_long_session import FAIL_EVERY, PROMPT_EVERY, write_long_claude_session
from test_browser import browser, watched_page  # noqa: F401  (the module's chromium fixture)

from replay_site.pipeline import stages as site
from replay_site.pages import paging

ROOT = Path(__file__).parent.parent
LONG_STEPS = 460  # three pages of paging.PAGE_STEPS (200) steps


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """tests/data plus one generated Claude Code session of LONG_STEPS steps."""
    logs = tmp_path_factory.mktemp("logs")
    write_long_claude_session(logs / "long" / "long.jsonl", steps=LONG_STEPS)
    out = tmp_path_factory.mktemp("reading-site")
    site.build([Path(__file__).parent / "data", logs / "long"], out, site.BuildOptions())
    return out


def long_slug(site_dir: Path) -> str:
    sessions = json.loads((site_dir / "sessions.json").read_text())["sessions"]
    return Path(max(sessions, key=lambda s: s["steps"])["page"]).stem


def failed_steps(site_dir: Path) -> list[int]:
    """The steps of the long session holding a failed call, from the session maps of its pages
    (each lists its own and the nearest one either side)."""
    found = set()
    for number in range(1, paging.page_count(LONG_STEPS) + 1):
        page = (site_dir / paging.page_path(long_slug(site_dir), number)).read_text()
        data = re.search(r'<script type="application/json" id="session-map">(.*?)</script>', page, re.S).group(1)
        found.update(json.loads(data)["errors"])
    return sorted(found)


def expected_failed_steps() -> list[int]:
    # gen_long_session: a prompt step opens every PROMPT_EVERY turns; each turn is one step;
    # turn t fails when t % FAIL_EVERY == FAIL_EVERY - 1. Step of turn t = t + 1 + t // PROMPT_EVERY + 1.
    steps, turn = [], 0
    while (step := turn + turn // PROMPT_EVERY + 2) <= LONG_STEPS:
        if turn % FAIL_EVERY == FAIL_EVERY - 1:
            steps.append(step)
        turn += 1
    return steps


def in_view(page, selector: str) -> bool:
    """Wholly below the sticky top bar and starting inside the viewport."""
    top = page.evaluate(f"document.querySelector({selector!r}).getBoundingClientRect().top")
    bar = page.evaluate("document.querySelector('.topbar').getBoundingClientRect().bottom")
    return bar <= top < page.viewport_size["height"]


def test_the_session_map_lists_the_failed_steps_worked_out_from_the_generator(built):
    assert failed_steps(built) == expected_failed_steps()


def test_an_old_link_to_a_step_on_a_later_page_lands_on_it(browser, built):
    slug = long_slug(built)
    context = browser.new_context()
    page = watched_page(context)
    # an old link names the first page; the step lives on page 3
    page.goto((built / paging.page_path(slug, 1)).as_uri() + "#step-430")
    page.wait_for_url(re.compile(rf"/{re.escape(slug)}/3\.html#step-430$"))
    page.wait_for_load_state()
    assert in_view(page, "#step-430")
    assert page.errors == [] and page.remote == []
    context.close()


def test_j_k_and_e_keys_move_between_steps_and_across_pages(browser, built):
    slug = long_slug(built)
    failed = expected_failed_steps()
    on_first = [n for n in failed if paging.page_of(n) == 1]
    context = browser.new_context()
    page = watched_page(context)
    page.goto((built / paging.page_path(slug, 1)).as_uri())
    page.keyboard.press("j")
    assert page.evaluate("location.hash") == "#step-1"
    page.keyboard.press("j")
    assert page.evaluate("location.hash") == "#step-2" and in_view(page, "#step-2")
    page.keyboard.press("k")
    assert page.evaluate("location.hash") == "#step-1"
    page.keyboard.press("e")
    assert page.evaluate("location.hash") == f"#step-{failed[0]}" and in_view(page, f"#step-{failed[0]}")
    page.keyboard.press("e")
    assert page.evaluate("location.hash") == f"#step-{failed[1]}"
    page.keyboard.press("E")
    assert page.evaluate("location.hash") == f"#step-{failed[0]}"
    # from the last failure of page 1, e goes on to the first failure of page 2
    page.goto((built / paging.page_path(slug, 1)).as_uri() + f"#step-{on_first[-1]}")
    page.keyboard.press("e")
    following = failed[len(on_first)]
    page.wait_for_url(re.compile(rf"/{re.escape(slug)}/2\.html#step-{following}$"))
    page.wait_for_load_state()
    assert in_view(page, f"#step-{following}")
    # ? shows the keys in a modal dialog that Esc closes
    page.keyboard.press("?")
    dialog = page.locator("dialog.keys-dialog")
    assert dialog.is_visible() and "next step" in dialog.inner_text()
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    assert page.errors == [] and page.remote == []
    context.close()


def test_a_search_hit_opens_the_collapsed_output_holding_the_match(browser, built):
    slug = long_slug(built)
    context = browser.new_context()
    page = watched_page(context)
    page.goto((built / "index.html").as_uri())
    # gen_long_session: every Read call returns 30 lines "def function_k(value): ..." (k < 10),
    # folded on the page (more than 15 lines); the words appear nowhere else
    page.locator("#search-input").fill('"def function_9"')
    page.locator("#search-results .hit-link").first.wait_for()
    first = page.locator("#search-results .hit-link").first
    assert page.locator("#search-results mark").first.inner_text().lower() == "def function_9"
    href = first.get_attribute("href")
    assert slug in href
    number = href.rsplit("#step-", 1)[1]
    first.click()
    page.wait_for_url(re.compile(rf"#step-{number}$"))
    page.wait_for_load_state()
    output = page.locator(f"#step-{number} details.output")
    assert output.evaluate("d => d.open")
    assert "def function_9" in output.inner_text()
    holding = page.locator(f"#step-{number} pre.output-text")
    assert holding.is_visible()
    # and that output starts folded when the page is opened without a search
    page.goto((built / "index.html").as_uri())
    page.goto(page.url.replace("index.html", href.split("#")[0]) + f"#step-{number}")
    assert not page.locator(f"#step-{number} details.output").evaluate("d => d.open")
    assert page.errors == [] and page.remote == []
    context.close()


def test_search_matches_words_from_their_start_not_inside_them(browser, built):
    context = browser.new_context()
    page = watched_page(context)
    page.goto((built / "index.html").as_uri())
    page.locator("#search-input").fill("unction_9")  # inside "function_9" only
    page.locator("#search-results .search-status").filter(has_text="matching").wait_for()
    assert page.locator("#search-results .hit-link").count() == 0
    page.locator("#search-input").fill("functio")  # a prefix: found
    page.locator("#search-results .hit-link").first.wait_for()
    assert page.errors == [] and page.remote == []
    context.close()


def test_printing_a_page_prints_failed_outputs_folds_routine_ones_and_drops_the_buttons(browser, built):
    pypdf = pytest.importorskip("pypdf")
    slug = long_slug(built)
    context = browser.new_context()
    page = watched_page(context)
    page.goto((built / paging.page_path(slug, 3)).as_uri())
    # gen_long_session: turn 412 fails with "step 412 failed" (step 430, page 3); Read outputs
    # are 30 lines "def function_k(value)", folded on the page and routine on paper
    folded = page.locator("details.output:not([open]) pre.output-text").first
    routine = folded.text_content().strip().splitlines()[-2].strip()
    assert not folded.is_visible()
    pdf = pypdf.PdfReader(io.BytesIO(page.pdf()))
    printed = " ".join(p.extract_text() for p in pdf.pages)
    assert "step 412 failed" in printed and routine not in printed
    assert "Expand all" not in printed and "search all sessions" not in printed
    page.emulate_media(media="print")
    clipped = page.evaluate("[...document.querySelectorAll('pre')].filter(p => p.offsetParent"
                            " && (p.scrollWidth > p.clientWidth + 1 || p.scrollHeight > p.clientHeight + 1)).length")
    assert clipped == 0
    context.close()


@pytest.mark.parametrize("which", ["index", "session"])
def test_no_sideways_scroll_on_a_phone(browser, built, which):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = watched_page(context)
    target = built / ("index.html" if which == "index" else paging.page_path(long_slug(built), 1))
    page.goto(target.as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    if which == "session":  # the navigator is a drawer behind the top bar's button
        # the top bar is taller on a phone (search on its own row): an anchored step clears it
        page.goto(target.as_uri() + "#step-5")
        assert in_view(page, "#step-5")
        assert not page.locator("#step-nav").is_visible()
        page.locator(".nav-toggle").click()
        assert page.locator("#step-nav").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()


def serious_violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {len(v['nodes'])} nodes, e.g. {v['nodes'][0]['target']}"
            for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violations(browser, built, scheme):
    pytest.importorskip("axe_playwright_python")
    context = browser.new_context(color_scheme=scheme)
    page = watched_page(context)
    found = {}
    for name, path in (("index", "index.html"), ("session", paging.page_path(long_slug(built), 3)),
                       ("code session", _page_with_code(built))):
        page.goto((built / path).as_uri())
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")  # check folded text too
        found[name] = serious_violations(page)
    assert found == {"index": [], "session": [], "code session": []}
    context.close()


def _page_with_code(site_dir: Path) -> str:
    """A session page of tests/data with highlighted code (pygments colours to check)."""
    for path in sorted((site_dir / "sessions").glob("*.html")):
        if 'class="highlight' in path.read_text():
            return path.relative_to(site_dir).as_posix()
    pytest.fail("tests/data has no session with highlighted code")


def test_the_theme_toggle_is_remembered(browser, built):
    context = browser.new_context(color_scheme="light")
    page = watched_page(context)
    page.goto((built / "index.html").as_uri())
    background = "getComputedStyle(document.body).backgroundColor"
    light = page.evaluate(background)
    page.locator("#theme-toggle").click()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    dark = page.evaluate(background)
    assert dark != light
    page.goto((built / paging.page_path(long_slug(built), 1)).as_uri())
    assert page.evaluate(background) == dark
    context.close()


SHOTS = ROOT / "docs" / "screenshots"


@pytest.mark.skipif(not os.environ.get("UPDATE_SCREENSHOTS"), reason="set UPDATE_SCREENSHOTS=1 to rewrite docs/screenshots/")
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_for_the_readme(browser, scheme):
    example = ROOT / "example_output"
    sessions = json.loads((example / "sessions.json").read_text())["sessions"]
    richest = max(sessions, key=lambda s: (s["tool_calls"], s["page"]))["page"]
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto((example / "index.html").as_uri())
    page.screenshot(path=SHOTS / f"index-{scheme}.png")
    page.goto((example / richest).as_uri() + "#step-2")  # the navigator beside the steps
    page.screenshot(path=SHOTS / f"session-{scheme}.png")
    context.close()
    if scheme == "light":  # the index as a 390 px phone shows it (docs/getting-started.md)
        phone = browser.new_context(color_scheme=scheme, viewport={"width": 390, "height": 844}, device_scale_factor=2)
        page = phone.new_page()
        page.goto((example / "index.html").as_uri())
        page.screenshot(path=SHOTS / "index-phone.png")
        phone.close()


def test_search_through_split_term_buckets(browser, tmp_path):
    # every term-map bucket split by three characters; two-character words then narrow nothing
    out = tmp_path / "site"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("replay_site.pages.search.SPLIT_BYTES", 1)
        site.build([Path(__file__).parent / "data" / "glue"], out, site.BuildOptions())
    index = (out / "assets" / "search-index.js").read_text()
    assert '"two"' in index and '"tw"' not in index
    context = browser.new_context()
    page = watched_page(context)
    page.goto((out / "index.html").as_uri())
    # tests/data/glue/legacy-mixed.jsonl: the assistant replies "There are two TODOs, both in `src/cache.py`."
    for query in ("two todos cache.py", "tw tod"):
        page.locator("#search-input").fill(query)
        page.locator("#search-results .hit-text").filter(has_text="two TODOs").first.wait_for()
    assert page.errors == [] and page.remote == []
    context.close()


def test_the_hash_follows_reading_and_filters_and_o_and_brackets_work(browser, built):
    slug = long_slug(built)
    context = browser.new_context()
    page = watched_page(context)
    page.goto((built / paging.page_path(slug, 1)).as_uri())
    # scrolling by hand: the address names the step at the top
    page.evaluate("document.getElementById('step-50').scrollIntoView({block: 'start'})")
    for _ in range(30):  # the page updates the address a moment after scrolling stops
        if page.evaluate("location.hash") == "#step-50":
            break
        page.wait_for_timeout(100)
    assert page.evaluate("location.hash") == "#step-50"
    # o opens and closes the current step's outputs (step 3 = turn 1, a Read of 30 folded lines)
    page.goto((built / paging.page_path(slug, 1)).as_uri() + "#step-3")
    outputs = page.locator("#step-3 details.output")
    assert not outputs.first.evaluate("d => d.open")
    page.keyboard.press("o")
    assert outputs.first.evaluate("d => d.open")
    page.keyboard.press("o")
    assert not outputs.first.evaluate("d => d.open")
    # a step filter hides its kind and is remembered on the next page
    page.locator(".step-filters input[data-hide='output']").check()
    assert not page.locator("#step-3 details.output").first.is_visible()
    page.goto((built / paging.page_path(slug, 2)).as_uri())
    assert page.locator(".step-filters input[data-hide='output']").is_checked()
    assert page.locator("details.output").count() and not page.locator("details.output").first.is_visible()
    # ] and [ follow the session pager
    key, rel = ("]", "next") if page.locator('.pager a[rel="next"]').count() else ("[", "prev")
    target = page.locator(f'.pager a[rel="{rel}"]').first.evaluate("a => a.href")
    page.keyboard.press(key)
    page.wait_for_url(target)
    assert page.errors == [] and page.remote == []
    context.close()


def test_the_index_filters_rows_by_the_outcome_in_the_fragment(browser, built):
    context = browser.new_context()
    page = watched_page(context)
    page.goto((built / "index.html").as_uri() + "#status=failed")
    rows = page.locator(".session-table tbody tr")
    outcomes = rows.evaluate_all("rows => rows.filter(r => !r.hidden).map(r => r.dataset.outcome)")
    assert outcomes and set(outcomes) == {"failed"}
    assert rows.count() > len(outcomes)
    page.locator('.status-filter a[href="#status=all"]').click()
    # the filter follows the hashchange event, which lands after the click returns
    page.wait_for_function("() => [...document.querySelectorAll('.session-table tbody tr')].every(r => !r.hidden)")
    assert rows.evaluate_all("rows => rows.filter(r => r.hidden).length") == 0
    context.close()


def test_a_session_page_searches_itself_and_hands_the_words_to_the_index(browser, built):
    slug = long_slug(built)
    context = browser.new_context()
    page = watched_page(context)
    page.goto((built / paging.page_path(slug, 1)).as_uri())
    # gen_long_session: turn 412 (412 % 7 == 6) fails with "step 412 failed"; it is step 430, on page 3
    page.locator("#search-input").fill('"step 412 failed"')
    hit = page.locator("#search-results .hit-link").first
    hit.wait_for()
    assert hit.inner_text() == "step 430" and hit.get_attribute("href").endswith(f"{slug}/3.html#step-430")
    page.locator(".search-all").click()
    page.wait_for_url(re.compile(r"/index\.html$"))
    assert page.locator("#search-input").input_value() == '"step 412 failed"'
    page.locator("#search-results .hit-link").first.wait_for()
    assert page.errors == [] and page.remote == []
    context.close()
