"""The rows of the index and files.html kept between builds (store/fragments.py): a rebuild
renders only the rows whose inputs changed, and a kept row never reaches a site built from
other inputs, another theme or other settings."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import jinja2
import orjson
import pytest
from test_incremental import calls_of, glue_and_gptme_logs, snapshot

from replay_site.pipeline import stages as site
from replay_site.pages.themes import themes_dir
from replay_site.store.fragments import FragmentMemo
from replay_site.store.state_file import store_folder

ROW_TEMPLATES = ("_index_row.html", "_files_row.html")
STALE = "STALE-ROW-FROM-THE-MEMO"
APPENDED = '{"role": "user", "content": "one more question", "timestamp": "2026-11-23T09:00:00"}\n'


@pytest.fixture
def logs(tmp_path) -> Path:
    return glue_and_gptme_logs(tmp_path / "logs")


@pytest.fixture
def rows_rendered(monkeypatch) -> list[str]:
    """The row templates rendered, by name (jinja's Template.render wrapped)."""
    return calls_of(monkeypatch, jinja2.Template, "render", lambda template: template.name)


def row_renders(seen: list[str]) -> dict[str, int]:
    return {name: seen.count(name) for name in ROW_TEMPLATES}


def append_turn(logs: Path) -> None:
    log = logs / "gptme" / "markdown-hello" / "conversation.jsonl"
    log.write_text(log.read_text() + APPENDED)


def spoil_memo(out: Path) -> None:
    """Every kept row replaced by a marker, under the same keys: what a row kept for other
    inputs would look like if a key ever matched it."""
    path = store_folder(out) / "rows.json"
    memo = orjson.loads(path.read_bytes())
    memo["rows"] = {key: f"<tr><td>{STALE}</td></tr>" for key in memo["rows"]}
    path.write_bytes(orjson.dumps(memo))


def test_a_rebuild_renders_the_rows_of_the_changed_session_only(logs, tmp_path, rows_rendered):
    out, full = tmp_path / "site", tmp_path / "full"
    site.build([logs], out, site.BuildOptions())
    sessions = len(orjson.loads((out / "sessions.json").read_bytes())["sessions"])
    files = (out / "files.html").read_text().count('<td class="path">')
    assert row_renders(rows_rendered) == {"_index_row.html": sessions, "_files_row.html": files} and files > 0
    rows_rendered.clear()
    append_turn(logs)
    site.build([logs], out, site.BuildOptions())
    # the session's own index row; its files' rows show no figure it changed (a question adds no edit)
    assert row_renders(rows_rendered) == {"_index_row.html": 1, "_files_row.html": 0}
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert snapshot(out) == snapshot(full)


def test_a_kept_row_is_taken_only_for_the_same_inputs(logs, tmp_path):
    out = tmp_path / "site"
    site.build([logs], out, site.BuildOptions())
    spoil_memo(out)
    append_turn(logs)
    site.build([logs], out, site.BuildOptions())
    index = (out / "index.html").read_text()
    # the unchanged sessions' rows come from the memo (so this test can see one taken), the
    # changed session's is rendered again: its new step count is on the page
    assert index.count(STALE) == len(orjson.loads((out / "sessions.json").read_bytes())["sessions"]) - 1
    changed = next(s for s in orjson.loads((out / "sessions.json").read_bytes())["sessions"] if "markdown-hello" in s["source"])
    assert f'href="{changed["page"]}"' in index


@pytest.mark.parametrize("change", ["title", "theme", "full", "other key"])
def test_kept_rows_never_reach_a_site_of_other_settings_theme_or_code(logs, tmp_path, change):
    out = tmp_path / "site"
    site.build([logs], out, site.BuildOptions())
    spoil_memo(out)
    options = site.BuildOptions()
    if change == "title":
        options = site.BuildOptions(title="Another title")
    elif change == "theme":  # the same templates, one byte apart: another theme digest
        theme = tmp_path / "theme"
        shutil.copytree(themes_dir() / "default", theme)
        row = theme / "templates" / "_index_row.html"
        row.write_text(row.read_text() + "\n")
        options = site.BuildOptions(theme=str(theme))
    elif change == "full":
        options = site.BuildOptions(incremental=False)
    else:  # a memo kept under another build's key (other code, libraries or settings)
        path = store_folder(out) / "rows.json"
        path.write_bytes(orjson.dumps({**orjson.loads(path.read_bytes()), "key": "another build"}))
        append_turn(logs)  # so that the site-wide files are made again
    site.build([logs], out, options)
    assert not any(STALE.encode() in data for data in snapshot(out).values())


def test_a_memo_that_cannot_be_read_only_costs_the_rendering(logs, tmp_path):
    out, full = tmp_path / "site", tmp_path / "full"
    site.build([logs], out, site.BuildOptions())
    (store_folder(out) / "rows.json").write_bytes(b"\x00not json")
    append_turn(logs)
    site.build([logs], out, site.BuildOptions())
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert snapshot(out) == snapshot(full)


def test_the_memo_keeps_the_rows_used_in_order_and_holds_none_of_them(tmp_path):
    """A row set in the memo is written out as it comes, not held (a large site's rows were
    ~14 MiB to the end of its build); saved, the memo is the rows this build used, kept or new,
    in the order used, and a memo of the same rows is not written again."""
    path = tmp_path / "rows.json"
    memo = FragmentMemo(path, "key")
    row = "".join(["<tr><td>", "é" * 1000, "</td></tr>"])  # an object of its own, non-ASCII
    held = sys.getrefcount(row)
    memo["a"] = row
    assert sys.getrefcount(row) == held
    memo["b"], memo["a"] = "<tr>b</tr>", row
    memo.save()
    assert orjson.loads(path.read_bytes()) == {"key": "key", "rows": {"a": row, "b": "<tr>b</tr>"}}

    again = FragmentMemo(path, "key")
    again["b"], again["c"] = again.get("b"), "<tr>c</tr>"
    again.save()
    assert orjson.loads(path.read_bytes())["rows"] == {"b": "<tr>b</tr>", "c": "<tr>c</tr>"}
    written = path.stat().st_ino
    same = FragmentMemo(path, "key")
    same["c"], same["b"] = same.get("c"), same.get("b")
    same.save()
    assert path.stat().st_ino == written


def test_the_memo_is_written_a_row_at_a_time_as_one_document_would_be(tmp_path):
    """A session that changed tens of thousands of files has as many rows: the memo is written
    a row at a time, the bytes orjson gives the whole document (no row, one, several, text
    that JSON escapes)."""
    for rows in ({}, {"a": "<tr>1</tr>"}, {"k1": "<td>\"quoted\" \\ é \n</td>", "k2": "", "k3": "\u2028 \x00"}):
        memo = FragmentMemo(tmp_path / "rows.json", "the key", enabled=False)
        for key, html in rows.items():
            memo[key] = html
        memo.save()
        if rows:
            assert (tmp_path / "rows.json").read_bytes() == orjson.dumps({"key": "the key", "rows": rows})
            assert FragmentMemo(tmp_path / "rows.json", "the key").kept == rows
