"""The Factory Droid and Amp fixtures in one site beside a Codex session: each session listed
with its format and parent, its page parsed (calls, diffs, the link to its child)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sitetools import external_references, soup

from replay_site.pipeline import stages as site

DATA = Path(__file__).parent / "data"
DROID, DROID_CHILD = "5b0e2c1a-7d3f-4a8e-9c21-0f6a3b2d4e01", "9d4f1e2b-3c5a-4b6d-8e7f-1a2b3c4d5e02"
AMP, AMP_HANDOFF = "T-019cc0de-1111-7000-8000-00000000a001", "T-019cc0de-2222-7000-8000-00000000a002"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("droid-amp-site")
    site.build([DATA / "droid" / "sessions-2026", DATA / "amp" / "threads-2026", DATA / "codex" / "simplified.jsonl"],
               out, site.BuildOptions(incremental=False))
    index = json.loads((out / "sessions.json").read_text())
    return out, {entry["id"]: entry for entry in (index["sessions"] if isinstance(index, dict) else index)}


def test_every_session_is_listed_with_its_format_and_parent(built):
    _, entries = built
    assert {key: entries[key]["format"] for key in (DROID, DROID_CHILD, AMP, AMP_HANDOFF)} == {
        DROID: "droid", DROID_CHILD: "droid", AMP: "amp", AMP_HANDOFF: "amp"}
    assert (entries[DROID_CHILD]["parent"], entries[AMP_HANDOFF]["parent"]) == (DROID, AMP)
    assert entries["simplified-demo"]["format"] == "codex"


def test_pages_show_the_calls_diffs_and_child_links(built):
    out, entries = built
    droid = soup(out / entries[DROID]["page"])
    assert [tag.get_text() for tag in droid.select(".tool-call .tool-name")] == [
        "Read", "Edit", "Execute", "Task", "ApplyPatch", "Create", "Execute", "tool"]
    assert droid.find(string=lambda text: text and "return round(sum(items), 2)" in text)
    task = next(call for call in droid.select(".tool-call") if call.select_one(".tool-name").get_text() == "Task")
    assert task.select_one(".child-link a")["href"].endswith(entries[DROID_CHILD]["page"].rpartition("/")[2])
    amp = soup(out / entries[AMP]["page"])
    assert amp.find(string=lambda text: text and 'parser.add_argument("--verbose", action="store_true")' in text)
    for key in (DROID, DROID_CHILD, AMP, AMP_HANDOFF):
        assert external_references(soup(out / entries[key]["page"])) == []
