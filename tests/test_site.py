"""The whole pipeline on the example sessions and on hostile input, checked in the HTML."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sitetools import external_references, run_sitecheck, soup, step_numbers

from replay_site.pipeline import stages as site
from replay_site.pages import search
from replay_site.pages.render import OUTPUT_LIMIT
from conftest import copy_as_another


@pytest.fixture
def example_site(data_site) -> Path:
    return data_site


def glue_session(folder: Path, lines: list[str]) -> Path:
    """A bare Glue transcript (legacy lines) written by the test, for hostile or odd content."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "conversation.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return folder


def test_every_session_page_has_contiguous_unique_step_ids(example_site):
    data = json.loads((example_site / "sessions.json").read_text())
    assert data["sessions"], "the example data must produce sessions"
    for entry in data["sessions"]:
        page = soup(example_site / entry["page"])
        numbers = step_numbers(page)
        assert numbers == list(range(1, entry["steps"] + 1)), entry["page"]
        for number in numbers:  # each step carries a visible permalink to itself
            assert page.find("a", href=f"#step-{number}", class_="permalink")


def test_internal_links_resolve_and_nothing_is_fetched_from_a_host(example_site):
    pages = sorted(example_site.rglob("*.html"))
    for path in pages:
        page = soup(path)
        assert external_references(page) == [], path
        for anchor in page.find_all("a", href=True):
            href = anchor["href"]
            if href.startswith(("http:", "https:", "mailto:")):
                continue
            target, _, fragment = href.partition("#")
            file = (path.parent / target).resolve() if target else path
            assert file.exists(), f"{path.name}: broken link {href}"
            if fragment and file.suffix == ".html":
                assert soup(file).find(id=fragment), f"{path.name}: missing anchor {href}"


def test_shared_sitecheck_passes(example_site):
    if not Path(run_sitecheck.__globals__["SITECHECK"]).exists():
        pytest.skip("../shared/tools/sitecheck.py not present")
    assert run_sitecheck(example_site).endswith(" 0 problems")


def test_tool_outputs_are_inside_details(example_site):
    seen = 0
    for path in (example_site / "sessions").glob("*.html"):
        for output in soup(path).select("pre.output-text"):
            assert output.find_parent("details") is not None
            seen += 1
    assert seen > 0


def test_index_lists_sessions_newest_first_with_links(example_site):
    index = soup(example_site / "index.html")
    rows = index.select("table.session-table tbody tr")
    data = json.loads((example_site / "sessions.json").read_text())["sessions"]
    assert len(rows) == len(data)
    tops = [s["started_at"] for s in data if not s["parent"] and s["started_at"]]
    assert tops == sorted(tops, reverse=True)
    assert {a["href"] for a in index.select("table.session-table a")} == {s["page"] for s in data}


def test_builds_are_byte_identical(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    data = Path(__file__).parent / "data"
    site.build([data], first, site.BuildOptions())
    site.build([data], second, site.BuildOptions())
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    for name in files:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


HOSTILE = [
    '{"timestamp":"2026-01-01T00:00:00Z","type":"user_message","text":"<script>alert(1)</script> [x](javascript:alert(2)) ![img](https://tracker.example/p.png) <img src=x onerror=alert(3)>"}',
    '{"timestamp":"2026-01-01T00:00:01Z","type":"assistant_message","text":"</pre><script>alert(4)</script>"}',
    '{"timestamp":"2026-01-01T00:00:02Z","type":"tool_call","id":"c1","name":"<b>bash</b>","arguments":{"command":"echo \\"<script>alert(5)</script>\\""}}',
    '{"timestamp":"2026-01-01T00:00:03Z","type":"tool_result","call_id":"c1","content":"<script>alert(6)</script>","success":true}',
    '{"timestamp":"2026-01-01T00:00:04Z","type":"title_generated","title":"<script>alert(7)</script>"}',
]


def test_markup_in_a_log_is_shown_as_text_only(tmp_path):
    source = glue_session(tmp_path / "logs" / "s1", HOSTILE)
    out = tmp_path / "site"
    site.build([source], out, site.BuildOptions())
    for path in [out / "index.html", *(out / "sessions").glob("*.html")]:
        page = soup(path)
        for script in page.find_all("script"):
            if script.get("type") == "application/json":  # the session map: data, never run
                assert script["id"] == "session-map" and "<" not in script.string
                json.loads(script.string)
                continue
            assert script.get("src", "").endswith("assets/app.js") and not script.string, path
        for tag in page.find_all(True):
            assert not any(name.lower().startswith("on") for name in tag.attrs), (path, tag.name)
            assert "javascript:" not in (tag.get("href") or "").lower()
        assert external_references(page) == []
    text = soup(next((out / "sessions").glob("*.html"))).get_text()
    for number in range(1, 8):
        if number != 3:  # the onerror payload is an <img> tag; its text shows as well
            assert f"alert({number})" in text, f"payload {number} must stay visible as text"


def test_a_bad_line_is_reported_and_the_session_still_builds(tmp_path):
    lines = [HOSTILE[0], '{"timestamp": "2026-01-01T00:00:01Z", "type": "assistant_mess', HOSTILE[1]]
    source = glue_session(tmp_path / "s", lines)
    result = site.build([source], tmp_path / "site", site.BuildOptions())
    assert [str(p) for p in result.problems if p.kind == "bad_line"] == ["conversation.jsonl:2: truncated line, skipped"]
    entry = json.loads((tmp_path / "site" / "sessions.json").read_text())["sessions"][0]
    assert entry["warnings"] == 1
    page = soup(tmp_path / "site" / entry["page"])
    assert "conversation.jsonl:2" in page.select_one("#problems").get_text()


def test_long_output_is_cut_with_a_link_to_the_full_text(tmp_path):
    long_output = "".join(f"line {n}\n" for n in range(20_000))
    assert len(long_output) > OUTPUT_LIMIT
    lines = [
        '{"timestamp":"2026-01-01T00:00:00Z","type":"tool_call","id":"c1","name":"bash","arguments":{"command":"seq"}}',
        json.dumps({"timestamp": "2026-01-01T00:00:01Z", "type": "tool_result", "call_id": "c1", "content": long_output, "success": True}),
    ]
    out = tmp_path / "site"
    site.build([glue_session(tmp_path / "s", lines)], out, site.BuildOptions())
    page_path = next((out / "sessions").glob("*.html"))
    link = soup(page_path).select_one("p.cut a")
    full = page_path.parent / link["href"]
    assert full.read_text() == long_output
    # the page shows the output's beginning and its end, OUTPUT_LIMIT characters in all
    head, tail = (pre.get_text() for pre in soup(page_path).select("pre.output-text"))
    assert len(head) + len(tail) == OUTPUT_LIMIT and long_output.startswith(head) and long_output.endswith(tail)
    assert tail.endswith("line 19999\n")


def test_a_rebuild_removes_pages_of_sessions_that_are_gone(tmp_path):
    logs = tmp_path / "logs"
    glue_session(logs / "a", HOSTILE[:1])
    glue_session(logs / "b", HOSTILE[1:2])
    out = tmp_path / "site"
    # without the archive, which would render the session from its copy (test_archive.py)
    site.build([logs], out, site.BuildOptions(no_archive=True))
    assert len(list((out / "sessions").glob("*.html"))) == 2
    (logs / "b" / "conversation.jsonl").unlink()
    (logs / "b").rmdir()
    site.build([logs], out, site.BuildOptions(no_archive=True))
    assert len(list((out / "sessions").glob("*.html"))) == 1


def test_header_lists_checkpoints_and_links_them_to_their_steps(example_site):
    # tests/data/rlm/sessions/session_example.jsonl line 26: checkpoint "after-regions" at step 3
    linked = []
    for path in (example_site / "sessions").glob("*.html"):
        for anchor in soup(path).select(".facts a[href^='#step-']"):
            if "after-regions" in anchor.get_text():
                linked.append(anchor["href"])
    assert linked == ["#step-3"]


def test_reward_chart_data_table_links_to_steps_with_rewards(example_site):
    charts = 0
    for path in (example_site / "sessions").glob("*.html"):
        page = soup(path)
        for figure in page.select("figure.chart"):
            if not figure.figcaption.get_text().startswith("Reward per step"):
                continue
            charts += 1
            rewarded = [f"#{li['id']}" for li in page.select("li.step") if li.select_one(".reward")]
            assert [a["href"] for a in figure.select("details.chart-data a")] == rewarded
            assert figure.select("svg a") == []  # the picture holds no tab stops
    assert charts, "the rlm example sessions must draw a reward chart"


def test_a_parallel_build_writes_the_same_bytes(tmp_path):
    data = Path(__file__).parent / "data"
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    site.build([data], serial, site.BuildOptions(jobs=1))
    site.build([data], parallel, site.BuildOptions(jobs=2))
    files = sorted(p.relative_to(serial) for p in serial.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(parallel) for p in parallel.rglob("*") if p.is_file())
    for name in files:
        assert (serial / name).read_bytes() == (parallel / name).read_bytes(), name


def test_two_copies_of_the_same_logs_build_two_separate_families(tmp_path):
    """Ids repeat across copies (a backup beside the original): parents and children must be
    resolved inside each copy, never across. Codex is left out: it reads one copy of a
    rollout that appears twice, by design; and the second copy is not a byte copy, which
    discovery reads once."""
    data = Path(__file__).parent / "data"
    for name in ("claude", "glue", "gptme", "rlm"):
        shutil.copytree(data / name, tmp_path / "logs" / "one" / name)
        copy_as_another(data / name, tmp_path / "logs" / "two" / name)
    single = site.build([tmp_path / "logs" / "one"], tmp_path / "single", site.BuildOptions())
    double = site.build([tmp_path / "logs"], tmp_path / "double", site.BuildOptions())
    assert len(double.summaries) == 2 * len(single.summaries)
    children = sorted(len(s.children) for s in single.summaries)
    assert sorted(len(s.children) for s in double.summaries) == sorted(children * 2)
    for summary in double.summaries:
        page = soup(tmp_path / "double" / summary.page)
        copy = summary.source.split("/", 1)[0]
        for link in page.select("p.child-link a, p.parent a"):
            target = json.loads((tmp_path / "double" / "sessions.json").read_text())["sessions"]
            linked = next(s for s in target if s["page"] == "sessions/" + link["href"].partition("#")[0])
            assert linked["source"].startswith(copy + "/"), (summary.page, link["href"])


def test_every_step_of_a_priced_session_shows_the_running_total(example_site):
    checked = 0
    for entry in json.loads((example_site / "sessions.json").read_text())["sessions"]:
        page = soup(example_site / entry["page"])
        steps = page.select("li.step")
        running = [step.select_one(".running-cost") for step in steps]
        if entry["priced_steps"] == 0:
            assert not any(running), entry["page"]
            continue
        assert all(running), entry["page"]
        # the last running total is the session's own total, as the header states it
        header = page.find("dt", string="Cost").find_next("dd").get_text(" ", strip=True)
        assert header.startswith(running[-1].get_text(strip=True).removeprefix("Σ").strip()), entry["page"]
        checked += 1
    assert checked, "the example data must hold a priced session"


def test_search_files_hold_every_session_and_link_to_real_steps(example_site):
    index = (example_site / "assets" / "search-index.js").read_text()
    assert index.startswith("window.REPLAY_SEARCH=") and index.endswith(";\n")
    listed = json.loads(index.removeprefix("window.REPLAY_SEARCH=").removesuffix(";\n"))
    sessions = json.loads((example_site / "sessions.json").read_text())["sessions"]
    assert [entry[2] for entry in listed["sessions"]] == [s["page"] for s in sessions]
    for slug, _title, page_path, size in listed["sessions"]:
        shard = (example_site / "assets" / "search" / f"{slug}.js").read_text()
        assert len(shard.encode()) == size
        steps = json.loads(shard.split("]=", 1)[1].removesuffix(";\n"))
        for number, href, kind, body in steps:
            target, anchor = href.split("#")
            step = soup(example_site / target).find(id=anchor)
            assert anchor == f"step-{number}" and step is not None and f"kind-{kind}" in step["class"]
            assert body
    # every word of a session leads back to it through the term map
    buckets = {}
    for number, (slug, *_rest) in enumerate(listed["sessions"]):
        for word in filter(None, (example_site / "assets" / "search" / f"{slug}.terms").read_text().split("\n")):
            key = search.bucket_of(word)
            if key not in buckets:
                text = (example_site / "assets" / "search" / "terms" / f"{key}.js").read_text()
                buckets[key] = json.loads(text.split("]=", 1)[1].removesuffix(";\n"))
            assert number in [int(n, 36) for n in buckets[key][word].split(",")], word
    assert set(buckets) == set(listed["buckets"])


def test_a_partial_theme_overrides_what_it_ships_and_falls_back_for_the_rest(tmp_path):
    theme = tmp_path / "mytheme"
    (theme / "templates").mkdir(parents=True)
    (theme / "static").mkdir()
    (theme / "templates" / "index.html").write_text(
        '{% extends "base.html" %}{% block main %}<p id="custom">{{ summaries | length }} sessions</p>{% endblock %}')
    (theme / "static" / "style.css").write_text("body { background: #fff; }\n")
    out = tmp_path / "site"
    result = site.build([Path(__file__).parent / "data" / "glue"], out, site.BuildOptions(theme=str(theme)))
    assert soup(out / "index.html").select_one("#custom").get_text() == f"{len(result.summaries)} sessions"
    assert (out / "assets" / "style.css").read_text() == "body { background: #fff; }\n"
    assert (out / "assets" / "app.js").exists()  # the default theme's file, not shipped by mytheme
    page = soup(next((out / "sessions").glob("*.html")))
    assert page.select("li.step")  # session pages from the default templates


def test_an_unknown_theme_is_a_clear_error(tmp_path):
    from typer.testing import CliRunner

    from replay_site.cli.app import app

    result = CliRunner().invoke(app, ["build", str(Path(__file__).parent / "data" / "glue"), "--theme", "nosuch", "-o", str(tmp_path / "s")])
    assert result.exit_code == 1 and "theme 'nosuch' not found" in result.stderr


def test_the_header_counts_skipped_lines_apart_from_other_warnings(tmp_path):
    lines = [HOSTILE[0], '{"timestamp": "2026-01-01T00:00:01Z", "type": "assistant_mess', "[1, 2]",
             '{"timestamp":"2026-01-01T00:00:02Z","type":"brand_new_event","detail":"x"}']
    source = glue_session(tmp_path / "s", lines)
    site.build([source], tmp_path / "site", site.BuildOptions())
    page = soup(next((tmp_path / "site" / "sessions").glob("*.html")))
    warnings = page.find("dt", string="Warnings").find_next("dd").get_text(strip=True)
    # line 2 is torn and line 3 is not an object: 2 skipped; line 4 is an unknown event type
    assert warnings == "2 skipped lines, 1 unknown event"


def test_a_page_the_renderer_fails_on_becomes_a_notice_and_the_site_stays_whole(tmp_path, monkeypatch):
    from replay_site.pages.render import Renderer

    original = Renderer.session_pages

    def fail_on_subagents(self, whole, pages, nav, *args, **kwargs):
        files = original(self, whole, pages, nav, *args, **kwargs)
        if nav.parent:  # after the first page is written: the pages written so far are taken back
            yield next(files)
            raise ValueError("simulated renderer bug")
        yield from files

    monkeypatch.setattr(Renderer, "session_pages", fail_on_subagents)
    out = tmp_path / "site"
    result = site.build([Path(__file__).parent / "data" / "glue"], out, site.BuildOptions(incremental=False))
    failed = [str(p) for p in result.problems if "could not be rendered" in p.message]
    assert len(failed) == 1 and "simulated renderer bug" in failed[0]
    child = next(s for s in result.summaries if s.parent)
    page = soup(out / child.page)
    assert "could not be rendered" in page.get_text() and "simulated renderer bug" in page.get_text()
    if Path(run_sitecheck.__globals__["SITECHECK"]).exists():
        assert run_sitecheck(out).endswith(" 0 problems")
