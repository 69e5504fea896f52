"""A 10,000-step session (tests/gen_long_session.py) read in headless Chromium and parsed with
BeautifulSoup: the windowed pager, the time scrubber (click, drag, tap, keys), the navigator
following the current step, the copy-link button, and what a reader without JavaScript sees.
"""
from __future__ import annotations

import posixpath
import re
from pathlib import Path

import pytest
from gen_long_session import build_long_site
from sitetools import soup
from test_browser import browser, watched_page  # noqa: F401  (the module's chromium fixture)
from test_browser_reading import serious_violations

from replay_site.pages import paging

STEPS = 10_000
pytestmark = pytest.mark.slow  # a 10,000-step site and a browser: minutes; CI runs them


@pytest.fixture(scope="module")
def long_site(tmp_path_factory) -> tuple[Path, str]:
    out, first = build_long_site(tmp_path_factory.mktemp("long"), STEPS)
    return out, first.stem


# Every attribute whose URL a person can follow from a page: links, image-map areas, form
# actions and button overrides, frames, and a meta refresh (its content names the URL).
FOLLOWED = ("href", "action", "formaction", "src", "data")


def followable_urls(tag) -> list[str]:
    urls = [tag[name] for name in FOLLOWED if tag.has_attr(name)]
    if tag.name == "meta" and (tag.get("http-equiv") or "").lower() == "refresh":
        urls.append((tag.get("content") or "").partition("url=")[2])
    return urls


def sibling_pages(out: Path, slug: str, page: int, selector: str | None = None) -> set[str]:
    """The other pages of the session that page `page` links to (site paths), by every URL a
    person can follow from it (or by the links under `selector`)."""
    path = paging.page_path(slug, page)
    pages = {paging.page_path(slug, k) for k in range(1, paging.page_count(STEPS) + 1)} - {path}
    page_soup = soup(out / path)
    urls = [a["href"] for a in page_soup.select(selector)] if selector else \
        [url for tag in page_soup.find_all(True) for url in followable_urls(tag)]
    targets = {posixpath.normpath(posixpath.join(posixpath.dirname(path), url.strip().partition("#")[0]))
               for url in urls if url.strip().partition("#")[0]}
    return targets & pages


def shown_step(page) -> int:
    return int(re.search(r"#step-(\d+)$", page.url).group(1))


def test_a_page_links_to_at_most_25_of_its_sibling_pages(long_site):
    out, slug = long_site
    pages = paging.page_count(STEPS)
    assert pages == 50
    # the pager of page 25: 1, landmarks every 5 pages (50 / 12 rounded up is 5), 23-27, 50
    linked = sibling_pages(out, slug, 25, "nav.page-nav a[href]")
    assert linked == {paging.page_path(slug, k) for k in (1, 5, 10, 15, 20, 23, 24, 26, 27, 30, 35, 40, 45, 50)}
    # every URL of every page counts: the first page's whole-session lists (errors, prompts,
    # the chart's data table, the ledger, the card) name steps on every page of the session
    counts = {page: len(sibling_pages(out, slug, page)) for page in range(1, pages + 1)}
    assert max(counts.values()) <= 25, {page: count for page, count in counts.items() if count > 25}
    # the first page spends all of its budget (its lists name every page), not fewer
    assert counts[1] == 25
    # labels carry the page's steps: page 48 holds steps 9,401-9,600 (200 to a page)
    labels = [a.get_text() for a in soup(out / paging.page_path(slug, 50)).select("nav.page-nav")[0].select("a")]
    assert "48 · 9,401–9,600" in labels and labels[-1] == "50 · 9,801–10,000" and labels[0] == "1 · 1–200"


def test_every_page_has_a_scrubber_hidden_until_a_script_reveals_it(long_site):
    out, slug = long_site
    for page in range(1, paging.page_count(STEPS) + 1):
        scrubbers = soup(out / paging.page_path(slug, page)).select("#scrubber")
        assert len(scrubbers) == 1, page
        scrubber = scrubbers[0]
        first = paging.page_range(page, STEPS).start
        assert scrubber.has_attr("hidden") and scrubber["role"] == "slider" and scrubber["tabindex"] == "0"
        assert (scrubber["aria-valuemin"], scrubber["aria-valuemax"], scrubber["aria-valuenow"]) == ("1", str(STEPS), str(first))
        assert scrubber["aria-valuetext"] == f"step {first:,} of {STEPS:,}"


def test_the_page_size_does_not_grow_with_the_number_of_pages(long_site):
    """The pager and the session map of a middle page are as large as those of a page near
    the start: neither lists every page nor every error of the session."""
    out, slug = long_site

    def parts(page: int) -> tuple[int, int]:
        page_soup = soup(out / paging.page_path(slug, page))
        return len(str(page_soup.select_one("nav.page-nav .page-links"))), len(page_soup.find(id="session-map").string)

    near_start, middle = parts(3), parts(25)
    assert middle[0] < 1.5 * near_start[0] and abs(middle[1] - near_start[1]) < 200


def test_a_click_at_the_middle_of_the_scrubber_lands_on_a_middle_step(browser, long_site):
    out, slug = long_site
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = watched_page(context)
    page.goto((out / paging.page_path(slug)).as_uri())
    strip = page.locator("#scrubber svg")
    assert strip.is_visible()
    box = strip.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    # gen_long_session writes a line every 2 seconds and 2 or 3 lines a step: the middle of the
    # time is the middle of the steps, within a couple of per cent; it lives on page 25 or 26
    page.wait_for_url(re.compile(rf"/{re.escape(slug)}/2[56]\.html#step-\d+$"))
    page.wait_for_load_state()
    number = shown_step(page)
    assert 4_800 <= number <= 5_200
    assert page.locator(f"#step-{number}").is_visible()
    # the scrubber of the new page says where the step sits, and keeps the focus for the keys
    scrubber = page.locator("#scrubber")
    assert scrubber.get_attribute("aria-valuenow") == str(number)
    assert page.evaluate("document.activeElement.id") == "scrubber"
    page.keyboard.press("ArrowRight")
    assert page.evaluate("location.hash") == f"#step-{number + 1}"
    assert scrubber.get_attribute("aria-valuetext") == f"step {number + 1:,} of {STEPS:,}"
    # the current step's thumb sits at its moment: about the middle of the strip
    thumb = page.locator("#scrubber .scrub-thumb").bounding_box()
    box = strip.bounding_box()
    assert abs(thumb["x"] - (box["x"] + box["width"] / 2)) < box["width"] * 0.03
    page.keyboard.press("End")
    page.wait_for_url(re.compile(rf"/{re.escape(slug)}/50\.html#step-{STEPS}$"))
    assert page.errors == [] and page.remote == []
    assert serious_violations(page) == []  # (axe's own requests break the page's policy: checked last)
    context.close()


def test_dragging_the_scrubber_moves_through_the_page_and_releasing_lands(browser, long_site):
    out, slug = long_site
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = watched_page(context)
    page.goto((out / paging.page_path(slug)).as_uri())
    box = page.locator("#scrubber svg").bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 1, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.01, y, steps=3)  # within page 1's steps: it follows
    assert page.evaluate("location.hash").startswith("#step-")
    page.mouse.move(box["x"] + box["width"] * 0.75, y, steps=3)
    page.mouse.up()
    page.wait_for_url(re.compile(rf"/{re.escape(slug)}/3[6-9]\.html#step-\d+$"))
    assert 7_300 <= shown_step(page) <= 7_700
    context.close()


def test_a_tap_on_a_phone_lands_and_the_scrubber_fits(browser, long_site):
    out, slug = long_site
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = watched_page(context)
    page.goto((out / paging.page_path(slug)).as_uri())
    box = page.locator("#scrubber svg").bounding_box()
    assert box["width"] >= 300 and box["x"] + box["width"] <= 390
    page.locator("#scrubber svg").tap(position={"x": box["width"] / 2, "y": box["height"] / 2})
    page.wait_for_url(re.compile(rf"/{re.escape(slug)}/2[56]\.html#step-\d+$"))
    assert 4_800 <= shown_step(page) <= 5_200
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()


def test_the_navigator_follows_the_current_step_in_the_column_and_the_drawer(browser, long_site):
    out, slug = long_site

    def entry_inside_navigator(page, number: int) -> bool:
        return page.evaluate(f"""(() => {{
            const nav = document.getElementById('step-nav').getBoundingClientRect();
            const entry = document.querySelector('.step-index a[href="#step-{number}"]').getBoundingClientRect();
            return entry.top >= nav.top && entry.bottom <= nav.bottom && entry.bottom <= innerHeight;
        }})()""")

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = watched_page(context)
    page.goto((out / paging.page_path(slug, 25)).as_uri() + "#step-4990")
    # opened at a step near the end of the page: its entry is current and in sight at once
    assert page.locator('.step-index a[aria-current="step"]').get_attribute("href") == "#step-4990"
    assert entry_inside_navigator(page, 4990)
    page.keyboard.press("j")
    assert page.evaluate("location.hash") == "#step-4991"
    assert page.locator('.step-index a[aria-current="step"]').get_attribute("href") == "#step-4991"
    assert entry_inside_navigator(page, 4991)
    context.close()

    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = watched_page(context)
    page.goto((out / paging.page_path(slug, 25)).as_uri() + "#step-4990")
    page.keyboard.press("j")
    page.locator(".nav-toggle").click()
    assert page.locator("#step-nav").is_visible()
    assert entry_inside_navigator(page, 4991)
    context.close()


def test_copy_link_names_the_page_that_holds_the_step(browser, long_site):
    out, slug = long_site
    context = browser.new_context()
    page = watched_page(context)
    address = (out / paging.page_path(slug, 25)).as_uri()
    page.goto(address + "#step-4805")
    page.locator("#step-4805 button.copy-link").click()
    status = page.locator(".copy-status")
    status.wait_for()
    assert status.inner_text().endswith(f"/{slug}/25.html#step-4805")
    assert address + "#step-4805" in status.inner_text()
    context.close()


def test_without_javascript_nothing_misleads_and_a_deep_link_is_answered(browser, long_site):
    out, slug = long_site
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto((out / paging.page_path(slug)).as_uri() + "#step-9537")
    assert not page.locator("#scrubber").is_visible()
    assert not page.locator("form.step-jump").is_visible()
    assert not page.locator("button.copy-link").count()
    note = page.locator("nav.page-nav .page-ranges").first
    assert note.is_visible()
    # step 9,537 is on page ⌈9537 / 200⌉ = 48, steps 9,401-9,600
    assert "page 48: steps 9,401–9,600" in note.inner_text()
    assert "This is page 1 of 50, steps 1–200." in note.inner_text()
    context.close()


def test_an_entry_beyond_the_budget_is_text_without_javascript_and_a_link_with_it(browser, long_site):
    out, slug = long_site
    first = soup(out / paging.page_path(slug))
    # an error on a page outside page 1's budget: printed as its text, with its step number
    entry = first.select_one("ul.error-list span.step-ref")
    number = int(entry["data-step-link"])
    assert entry.get_text().startswith(f"step {number}: ") and f"{slug}/{paging.page_of(number)}.html" not in \
        {a["href"].partition("#")[0] for a in first.select("a[href]")}

    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto((out / paging.page_path(slug)).as_uri())
    page.locator("details.errors > summary").click()
    text = page.locator(f'ul.error-list [data-step-link="{number}"]')
    assert text.is_visible() and text.inner_text() == entry.get_text()
    assert page.locator("ul.error-list li").count() == 1_000 and page.locator("details.errors p.list-left").is_visible()
    context.close()

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = watched_page(context)
    page.goto((out / paging.page_path(slug)).as_uri())
    # the script made every such entry a link (the ledger's and the chart's too), and it lands
    assert page.locator("span.step-ref").count() == 0
    assert page.locator("a.step-ref").count() == len(first.select("span.step-ref"))
    page.locator("details.errors > summary").click()
    link = page.locator("ul.error-list a", has_text=entry.get_text())
    assert link.get_attribute("href") == f"{slug}/{paging.page_of(number)}.html#step-{number}"
    link.click()
    page.wait_for_url(re.compile(rf"/{re.escape(slug)}/{paging.page_of(number)}\.html#step-{number}$"))
    assert page.locator(f"#step-{number}").is_visible()
    page.go_back()
    page.wait_for_url(re.compile(rf"/{re.escape(slug)}\.html"))
    assert page.errors == [] and page.remote == []
    assert serious_violations(page) == []
    context.close()
