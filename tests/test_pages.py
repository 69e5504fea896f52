"""Session pages: paging of a long session, links to steps on the right page, the header's
error list, the navigator, figures, arguments as key/value rows, diffs, caps on every text."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from gen_long_session import FAIL_EVERY, PROMPT_EVERY, write_long_claude_session
from sitetools import render_whole, soup
from test_site import glue_session

from replay_site.pipeline import stages as site
from replay_site.diffs import diff_view
from replay_site.discover import find_sources
from replay_site.model import Cost, CostTotal, FileChange
from replay_site.pages import formatting, paging
from replay_site.pages.views_steps import FIELD_LIMIT, MAX_DEPTH

LONG_STEPS = 9_050
STEP_ID = re.compile(r'<li class="step[^"]*" id="step-(\d+)"')


@pytest.fixture(scope="module")
def long_site(tmp_path_factory) -> tuple[Path, dict]:
    """A 9,050-step Claude Code session built into a site: (site folder, its sessions.json entry)."""
    logs = tmp_path_factory.mktemp("long-logs")
    write_long_claude_session(logs / "-home-dev-long" / "long.jsonl", LONG_STEPS)
    out = tmp_path_factory.mktemp("long-site")
    site.build([logs], out, site.BuildOptions(incremental=False))
    (entry,) = json.loads((out / "sessions.json").read_text())["sessions"]
    return out, entry


def expected_errors() -> list[int]:
    """Step numbers of the generated log's failed calls. The generator writes a prompt step
    before every PROMPT_EVERY-th turn and fails every FAIL_EVERY-th turn (turn % 7 == 6)."""
    steps, number = [], 0
    for turn in range(LONG_STEPS):
        if turn % PROMPT_EVERY == 0:
            number += 1
        number += 1
        if number > LONG_STEPS:
            break
        if turn % FAIL_EVERY == FAIL_EVERY - 1:
            steps.append(number)
    return steps


def target_of(page: Path, href: str) -> tuple[Path, str]:
    target, _, fragment = href.partition("#")
    return ((page.parent / target).resolve() if target else page), fragment


def test_a_long_session_is_split_into_pages_each_holding_its_own_steps(long_site):
    out, entry = long_site
    slug = Path(entry["page"]).stem
    assert entry["steps"] == LONG_STEPS
    pages = paging.page_count(LONG_STEPS)
    assert pages == 46
    for number in range(1, pages + 1):
        text = (out / paging.page_path(slug, number)).read_text()
        found = [int(n) for n in STEP_ID.findall(text)]
        assert found == list(paging.page_range(number, LONG_STEPS)), number
    assert not (out / paging.page_path(slug, pages + 1)).exists()


def test_links_to_step_9000_name_its_page_from_header_navigator_and_map(long_site):
    out, entry = long_site
    slug = Path(entry["page"]).stem
    first = out / entry["page"]
    page = soup(first)
    errors = expected_errors()
    assert entry["errors"] == len(errors)

    def expected_href(number: int) -> str:
        return f"#step-{number}" if paging.page_of(number) == 1 else f"{slug}/{paging.page_of(number)}.html#step-{number}"

    def entries(selector: str) -> list[tuple[int, str | None]]:
        """(step, href) of each entry of a list: a link, or the step's text beyond the page's budget."""
        found = []
        for li in page.select(selector):
            link, text = li.find("a"), li.find("span", class_="step-ref")
            assert (link is None) != (text is None), li
            number = int(re.search(r"\d+", li.get_text()).group())
            if text is not None:
                assert text["data-step-link"] == str(number)
            found.append((number, link["href"] if link else None))
        return found

    # the first views.LISTED (1,000) errors are listed: the failure that mattered (the card's) first,
    # the rest in order; a note says where the rest are
    listed = entries("header.summary ul.error-list li")
    mattered = int(page.select_one("#what-went-wrong dl.failure a").get_text().strip("#"))
    assert int(re.search(r"\d+", page.select_one("ul.error-list li.mattered").get_text()).group()) == mattered == listed[0][0]
    assert [number for number, _ in listed] == [mattered, *(n for n in errors if n != mattered)][:1_000] and len(errors) > 1_000
    assert page.select_one("details.errors p.list-left").get_text() == \
        f"The first 1,000 of {len(errors):,} errors are listed here; each page of the session lists its own."
    # each linked one lands on its step, on the page that holds it; the others are text
    assert all(href == expected_href(number) for number, href in listed if href)
    linked = [number for number, href in listed if href]
    assert {paging.page_of(n) for n in linked} >= {1, 2, 3} and any(href is None for _, href in listed)
    file, fragment = target_of(first, expected_href(linked[-1]))
    assert f'id="{fragment}"' in file.read_text()
    # the prompt outline lists every prompt of the session (fewer than 1,000)
    prompts = entries("ol.prompt-outline li")
    assert len(prompts) == -(-LONG_STEPS // (PROMPT_EVERY + 1)) and page.select_one("nav p.list-left") is None
    late_prompt = next((number, href) for number, href in prompts if number >= 9000)
    assert late_prompt[1] == expected_href(late_prompt[0])  # the last page is in every pager's window
    # the cost chart's bars name the page of their step too, where the budget reaches
    ids: dict[Path, set[str]] = {}
    chart_links = {a["href"] for a in page.select("figure.chart a")}
    for href in chart_links:
        file, fragment = target_of(first, href)
        if file not in ids:
            ids[file] = {f"step-{n}" for n in STEP_ID.findall(file.read_text())}
        assert fragment in ids[file], href
    assert len(chart_links) + len(page.select("figure.chart span.step-ref")) == len(page.select("figure.chart tbody tr"))
    # on the page holding step 9000, links to it stay on the page; links back name page 1
    holder = out / paging.page_path(slug, paging.page_of(9000))
    there = soup(holder)
    assert there.find(id="step-9000") is not None
    assert there.select_one('ol.step-index a[href="#step-9000"]') is not None
    # a later page lists its own errors and prompts, linked on the page, and links to the
    # full lists on the first page rather than repeating them (they grew with pages x errors)
    own = paging.page_range(45, LONG_STEPS)
    listed = there.select("header.summary ul.error-list a")
    assert [a["href"] for a in listed] == [f"#step-{n}" for n in errors if n in own] and listed
    assert there.select_one("details.errors summary").get_text(" ", strip=True) == \
        f"✗ {len(listed)} errors on this page, of {len(errors):,} errors"
    assert there.select_one("p.all-errors a")["href"] == f"../{slug}.html#errors" and there.select_one("p.list-left") is None
    own_prompts = [int(a["href"].removeprefix("#step-")) for a in there.select("ol.prompt-outline a")]
    assert own_prompts == [n for n, _ in prompts if n in own] and own_prompts
    assert there.select_one("p.all-prompts a")["href"] == f"../{slug}.html#prompts"
    assert page.find(id="errors") is not None and page.find(id="prompts") is not None
    assert page.select_one("p.all-errors") is None and page.select_one("p.all-prompts") is None
    session_map = json.loads(there.find("script", id="session-map").string)
    # the map holds the page's own errors and the nearest one either side (the e/E keys go on
    # from there), not every error of the session on every page
    inside = [n for n in errors if n in own]
    assert session_map["errors"] == [max(n for n in errors if n < own.start), *inside, min(n for n in errors if n >= own.stop)]
    # which page holds a step is a rule (200 to a page), not a list of every page
    assert session_map["pages"] == {"size": 200, "steps": LONG_STEPS, "first": f"../{slug}.html", "later": "", "suffix": ".html"}
    assert session_map["shard"] == f"../../assets/search/{slug}.js"
    body = there.find("body")
    assert (body["data-page"], body["data-pages"], body["data-root"]) == ("45", "46", "../../")
    current = there.select('nav.page-nav a[aria-current="page"]')
    assert current and current[0].get_text() == "45 · 8,801–9,000"
    assert there.select_one('nav.page-nav a[rel="next"]')["href"] == "46.html"
    assert there.select_one('nav.page-nav a[rel="prev"]')["href"] == "44.html"
    # the running total is carried from page to page: the last step's is the header's total
    last = soup(out / paging.page_path(slug, 46)).select("li.step .running-cost")[-1].get_text(strip=True)
    assert last.removeprefix("Σ").strip() == page.find("dt", string="Cost").find_next("dd").get_text(" ", strip=True)


@pytest.mark.slow
def test_a_50000_step_session_builds_to_its_last_page(tmp_path):
    """Issue 12: a generated 50,000-step session builds. Its time per step is measured by
    `tests/benchmark.py --long` (0.76 ms a step at 50,000 against 0.84 at 10,000), never
    asserted here; this only checks that the build finishes whole."""
    logs = tmp_path / "logs"
    write_long_claude_session(logs / "-home-dev-long" / "long.jsonl", 50_000)
    out = tmp_path / "site"
    result = site.build([logs], out, site.BuildOptions(incremental=False))
    (summary,) = result.summaries
    assert summary.steps == 50_000 and not result.problems
    last = out / paging.page_path(Path(summary.page).stem, paging.page_count(50_000))
    assert last.name == "250.html"
    assert STEP_ID.findall(last.read_text())[-1] == "50000"


def test_the_subagent_of_link_goes_to_the_spawning_step(tmp_path):
    # tests/data/claude/-home-dev-calc-demo: the Task call of the parent's step 10 spawned
    # agent-7c3d9e1 (toolUseResult.agentId), whose page says "Subagent of" that step.
    out = tmp_path / "site"
    result = site.build([Path(__file__).parent / "data" / "claude" / "-home-dev-calc-demo"], out, site.BuildOptions())
    child = next(s for s in result.summaries if s.parent)
    parent = next(s for s in result.summaries if not s.parent)
    link = soup(out / child.page).select_one("p.parent a")
    assert link["href"] == f"{Path(parent.page).name}#step-10"
    spawning = soup(out / parent.page).find(id="step-10")
    assert spawning.select_one("p.child-link a")["href"] == Path(child.page).name


def test_costs_are_written_one_way():
    assert formatting.cost(0.05862, estimated=False).text == "$0.0586"
    assert formatting.cost(0.05862, estimated=True).text == "≈ $0.0586"
    lower = formatting.cost(0.05862, estimated=True, unpriced=1)
    assert (lower.text, lower.mark) == ("≥ $0.0586", "lower-bound") and "1 step without a price" in lower.note
    assert formatting.cost(None, unpriced=3).text == "unknown"
    assert formatting.cost(None).text == "—"
    assert formatting.step_cost(Cost(None, "unknown")).text == "unknown"
    assert formatting.step_cost(Cost(0.25, "log")).text == "$0.2500"
    total = CostTotal()
    total.add(Cost(0.01, "estimate"), "m")
    total.add(Cost(None, "unknown"), "x")
    assert formatting.cost_total(total) == "≥ $0.0100"
    running = formatting.RunningCost()
    assert [running.after(step).text for step in (_Priced(Cost(0.01, "log")), _Priced(Cost(0.02, "log")), _Priced(None))] == \
        ["$0.0100", "$0.0300", "$0.0300"]


class _Priced:
    def __init__(self, cost):
        self.cost, self.model = cost, "m"


def test_show_writes_step_costs_the_way_pages_do(data):
    from typer.testing import CliRunner

    from replay_site.cli.app import app

    shown = CliRunner().invoke(app, ["show", str(data / "claude" / "-home-dev-calc-demo" / "5b1e7c2a-3f4d-4e6a-9b8c-0d1e2f3a4b5c.jsonl")])
    assert shown.exit_code == 0, shown.output
    costs = re.findall(r"^\[Step \d+ / .* / ([^/\]]+)\]$", shown.stdout, re.M)
    assert costs and all(c == "-" or re.fullmatch(r"≈ \$\d+\.\d{4}", c) for c in costs), costs


def test_diff_rows_carry_line_numbers_and_counts():
    # a hunk at old line 10 / new line 10: one context line, one removed, two added, one context
    view = diff_view(FileChange("a.py", "modify", "@@ -10,3 +10,4 @@\n ctx\n-old\n+new one\n+new two\n tail\n"))
    assert (view.added, view.removed) == (2, 1)
    assert [(r.kind, r.old, r.new) for r in view.rows] == [
        ("hunk", None, None), ("ctx", 10, 10), ("del", 11, None), ("add", None, 11), ("add", None, 12), ("ctx", 12, 13)]
    assert view.new_file_text is None
    added = diff_view(FileChange("n.py", "add", "@@ -0,0 +1,2 @@\n+x = 1\n+y = 2\n"))
    assert added.new_file_text == "x = 1\ny = 2" and not added.folded


def test_arguments_are_key_value_rows_and_a_saved_file_is_shown_once(tmp_path):
    out = tmp_path / "site"
    site.build([Path(__file__).parent / "data" / "claude" / "-home-dev-calc-demo"], out, site.BuildOptions())
    page = soup(next(p for p in (out / "sessions").glob("*.html") if "agent" not in p.name))
    read = page.find(id="step-7-call-1")  # Read {"file_path": "/home/dev/calc-demo/calc.py"}
    rows = {div.dt.get_text(): div.dd.get_text(strip=True) for div in read.select("dl.args > div")}
    assert rows == {"file_path": "/home/dev/calc-demo/calc.py"}
    assert not read.select(".highlight.args")  # no JSON highlighting
    write = page.find(id="step-9-call-1")  # Write NOTES.md: "# Notes\n\nadd() subtracted; fixed.\n"
    assert write.get_text().count("add() subtracted; fixed.") == 1
    assert write.select_one(".diff-stat").get_text(" ", strip=True) == "+3 −0"
    assert write.select_one("pre.gutter").get_text().split() == ["1", "2", "3"]
    edit = page.find(id="step-8-call-1")  # Edit: return a - b -> return a + b
    assert edit.select_one(".diff-stat").get_text(" ", strip=True) == "+1 −1"
    assert [span.get_text() for span in edit.select("pre.diff .d-del .ln")] == ["2   "]


def test_every_text_is_capped_with_the_full_text_beside_the_page_and_depth_is_bounded(tmp_path):
    prose = "word " * (FIELD_LIMIT // 5 + 100)
    deep: dict = {}
    node = deep
    for _ in range(MAX_DEPTH * 30):  # 600 levels: deeper than any recursion should go
        node["k"] = {}
        node = node["k"]
    arguments = {"command": "x" * (FIELD_LIMIT + 10), "deep": deep}
    lines = [
        json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "user_message", "text": prose}),
        json.dumps({"timestamp": "2026-01-01T00:00:01Z", "type": "tool_call", "id": "c1", "name": "run", "arguments": arguments}),
        json.dumps({"timestamp": "2026-01-01T00:00:02Z", "type": "tool_result", "call_id": "c1", "content": "ok", "success": True}),
    ]
    out = tmp_path / "site"
    site.build([glue_session(tmp_path / "s", lines)], out, site.BuildOptions())
    path = next((out / "sessions").glob("*.html"))
    page = soup(path)
    cut_links = [a["href"] for a in page.select("a") if "outputs/" in a.get("href", "")]
    fulls = sorted((path.parent / href).read_text() for href in cut_links)
    assert prose in fulls and "x" * (FIELD_LIMIT + 10) in fulls
    step = page.find(id="step-1")
    assert len(step.select_one(".prose").get_text()) <= FIELD_LIMIT + 10
    assert f"… nested deeper than {MAX_DEPTH}" in page.find(id="step-2-call-1").get_text()


def test_export_of_a_long_session_is_one_page_with_every_step(tmp_path):
    from typer.testing import CliRunner

    from replay_site.cli.app import app

    log = write_long_claude_session(tmp_path / "logs" / "-home-dev-long" / "long.jsonl", 450)
    result = CliRunner().invoke(app, ["export", str(log), "-o", str(tmp_path / "one.html")])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "one.html").read_text()
    page = BeautifulSoup(text, "html.parser")
    assert [int(n) for n in STEP_ID.findall(text)] == list(range(1, 451))
    assert not page.select("nav.page-nav")
    for anchor in page.find_all("a", href=True):
        assert anchor["href"].startswith("#"), anchor["href"]


def test_redactions_are_reported_in_the_header(data):
    from replay_site.figures.summary import summarize
    from replay_site.pages.render import PageNav, Renderer
    from replay_site.readers import registry

    (source,) = [s for s in find_sources(data / "glue", [registry()["glue"]], []) if s.path.name == "legacy-mixed.jsonl"]
    (session,) = registry()["glue"].read(source)
    summary = summarize(session, "Glue", "sessions/x.html", "sessions/x.html")
    plain = BeautifulSoup(render_whole(Renderer(), session, summary, PageNav("x"))["sessions/x.html"], "html.parser")
    assert plain.select_one(".redactions") is None
    summary.redactions = {"api key": 2, "jwt": 1}
    page = BeautifulSoup(render_whole(Renderer(), session, summary, PageNav("x"))["sessions/x.html"], "html.parser")
    assert "api key: 2 replacements, jwt: 1 replacement" in page.select_one(".redactions").get_text(" ", strip=True)


def test_prose_shown_without_the_markdown_parser_reads_as_the_parser_would_show_it(data, corpus):
    """Plain prose skips markdown-it; for every such text in the examples and the corpus, its
    paragraphs must hold the same text as markdown-it's paragraphs would (up to white space,
    which HTML collapses anyway)."""
    from replay_site.discover import discover, pick_readers
    from replay_site.pages import highlight
    from replay_site.readers import registry

    checked = 0
    for source in discover([data, corpus], pick_readers("auto"), []):
        for top in registry()[source.format].read(source):
            for session in top.walk():
                for text in (t for step in session.steps for t in (step.text, step.thinking) if t):
                    if highlight.has_markdown(text):
                        continue
                    parsed = BeautifulSoup(highlight.markdown(text), "html.parser")
                    expected = [" ".join(p.split()) for p in highlight.paragraphs(text)]
                    assert [" ".join(p.get_text().split()) for p in parsed.find_all("p")] == expected, text[:200]
                    assert len(parsed.find_all(True)) == len(parsed.find_all("p")), text[:200]
                    checked += 1
    assert checked > 50


def test_folded_steps_of_any_kind_keep_their_text_folded(data_site):
    # tests/data/claude/-home-dev-notebooks rewinds: its abandoned branch holds user and
    # assistant steps the reader folds; their text must sit inside a closed <details>.
    out = data_site
    kinds = set()
    for path in (out / "sessions").glob("*.html"):
        for step in soup(path).select("li.step.collapsed-step"):
            for prose in step.select(".prose"):
                assert prose.find_parent("details") is not None, (path.name, step["id"])
                kinds.add(step["data-kind"])
    assert {"user", "assistant"} <= kinds, kinds


@pytest.mark.parametrize("text", ["a *b*", "- item", "intro\n  2) step", "> quoted", "intro\n    code", "\tcode",
                                  "line  \nbreak", "ends with a break  ", "Title\n===", "intro\n- item", "12. first"])
def test_each_kind_of_markdown_syntax_sends_a_text_to_the_parser(text):
    from replay_site.pages import highlight
    assert highlight.has_markdown(text)


@pytest.mark.parametrize("text", ["Plain prose. Two sentences.", "a - b + c", "1.5 is a number", "one\ntwo\n\nthree",
                                  "x = 1", "-dash glued", "ends with one space "])
def test_plain_prose_skips_the_parser(text):
    from replay_site.pages import highlight
    assert not highlight.has_markdown(text)


def test_printed_values_are_escaped_as_markupsafe_escapes_them():
    # environment._escape_output gives what markupsafe.escape gives, as a plain str; these are
    # the kinds of value templates print, each with every character HTML escapes.
    import jinja2
    import markupsafe

    from replay_site.pages.environment import _escape_output
    from replay_site.pages.render import Renderer

    class Named:
        def __str__(self) -> str:
            return "<b>&'\"</b>"

    class Subclass(str):
        pass

    values = ["<script>&'\"x</script>", "", "plain", "é→<", 12, -3.5, float("nan"), True, None, Named(),
              markupsafe.Markup("<i>kept</i>"), Subclass("<s>"), jinja2.Undefined()]
    for value in values:
        assert _escape_output(value) == str(markupsafe.escape(value)), value
    page = Renderer().env.from_string("{{ a }}|{{ b }}|{{ c }}").render(a="<&>", b=7, c=markupsafe.Markup("<br>"))
    assert page == "&lt;&amp;&gt;|7|<br>"
