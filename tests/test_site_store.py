"""The output folder's store (store/site_store.py, store/state_file.py): one folder per output
folder holds everything a build keeps for it, one state file of a format number lists its
parts, and a state of another format, another key or damaged costs a full build, never a
misread site."""
from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest
from test_incremental import calls_of, glue_and_gptme_logs, snapshot

from replay_site import cache_folder
from replay_site.pipeline import source_passes
from replay_site.pipeline import stages as site
from replay_site.store.state_file import FORMAT, read_site, replace_site, state_path, store_folder

# tests/data/glue and gptme: 8 sources (test_incremental.test_a_build_reads_each_log_once)
SOURCES = 8


@pytest.fixture
def logs(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # a cache folder of this test's own
    return glue_and_gptme_logs(tmp_path / "logs")


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    return calls_of(monkeypatch, source_passes, "read_source", lambda source: source.rel)


def state(out: Path) -> dict:
    return orjson.loads(state_path(out).read_bytes())


def test_one_store_folder_per_output_folder_holds_everything_the_build_keeps(logs, tmp_path):
    first, second = tmp_path / "site", tmp_path / "other"
    # what the cache folder held for an output before the store (format 0): removed by its next build
    unfolded = [cache_folder() / f"{hashlib.sha1(str(first.resolve()).encode()).hexdigest()}.{kind}"
                for kind in ("json", "site.json", "rows.json", "discovery.pickle")]
    for path in unfolded:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"{}")
    site.build([logs], first, site.BuildOptions())
    site.build([logs], second, site.BuildOptions())
    assert sorted(folder.name for folder in (cache_folder() / "sites").iterdir()) == sorted(
        hashlib.sha1(str(out.resolve()).encode()).hexdigest() for out in (first, second))
    assert not any(path.exists() for path in unfolded)
    for out in (first, second):
        kept = state(out)
        assert kept["format"] == FORMAT and kept["parts"] == ["discovery.pickle", "rows.json"]
        assert sorted(path.name for path in store_folder(out).iterdir()) == ["discovery.pickle", "rows.json", "state.json"]
        assert len(kept["sources"]) == SOURCES
        assert kept["site"]["sessions"] == len(orjson.loads((out / "sessions.json").read_bytes())["sessions"])
    # nothing else in the cache folder is named after an output: the rest is shared by all builds
    assert not [path for path in cache_folder().iterdir() if path.name.split(".")[0] in {
        store_folder(out).name for out in (first, second)}]


def test_a_state_of_an_older_format_gives_a_full_build_and_is_replaced(logs, tmp_path, reads):
    out, full = tmp_path / "site", tmp_path / "full"
    site.build([logs], out, site.BuildOptions())
    path = state_path(out)
    older = path.read_bytes().replace(b'{"format":%d,' % FORMAT, b'{"format":%d,' % (FORMAT - 1), 1)
    path.write_bytes(older)
    assert read_site(path) is None  # the console entry does not answer from it either
    reads.clear()
    site.build([logs], out, site.BuildOptions())
    assert len(reads) == SOURCES  # every source read again: nothing of the older state was taken
    assert state(out)["format"] == FORMAT and read_site(path) is not None
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert snapshot(out) == snapshot(full)


@pytest.mark.parametrize("damage", ["garbage", "cut short", "wrong kinds", "site line only"])
def test_a_damaged_state_file_costs_only_a_full_build(logs, tmp_path, reads, damage):
    out, full = tmp_path / "site", tmp_path / "full"
    site.build([logs], out, site.BuildOptions())
    path = state_path(out)
    data = path.read_bytes()
    path.write_bytes({"garbage": b"\x00\xffnot json", "cut short": data[: len(data) // 2],
                      "wrong kinds": orjson.dumps({**state(out), "sources": ["not", "records"]}),
                      "site line only": data.split(b"\n")[1]}[damage])
    reads.clear()
    site.build([logs], out, site.BuildOptions())
    assert len(reads) == SOURCES
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert snapshot(out) == snapshot(full)
    assert state(out)["format"] == FORMAT and len(state(out)["sources"]) == SOURCES


def test_a_state_of_another_key_is_not_read_nor_its_parts(logs, tmp_path, reads, monkeypatch):
    """Another key (here another title): every source is read, discovery reads every head
    again, and the parts written under the old key are replaced."""
    from replay_site import discover

    out = tmp_path / "site"
    site.build([logs], out, site.BuildOptions())
    old_key = state(out)["key"]
    heads = calls_of(monkeypatch, discover, "read_head", lambda path: path.name)
    reads.clear()
    site.build([logs], out, site.BuildOptions(title="Another title"))
    assert len(reads) == SOURCES and len(heads) == len(list(logs.rglob("*.json*")))
    kept = state(out)
    assert kept["key"] != old_key
    assert orjson.loads((store_folder(out) / "rows.json").read_bytes())["key"] == kept["key"]


def test_a_part_the_build_does_not_keep_is_removed_with_its_listing(logs, tmp_path):
    """--full keeps no discovery memory: the pickle goes, and the state no longer lists it."""
    out = tmp_path / "site"
    site.build([logs], out, site.BuildOptions())
    site.build([logs], out, site.BuildOptions(incremental=False))
    assert state(out)["parts"] == ["rows.json"]
    assert sorted(path.name for path in store_folder(out).iterdir()) == ["rows.json", "state.json"]


def test_the_site_record_is_read_and_replaced_by_its_own_line(logs, tmp_path):
    """The console entry reads the header and the site line alone, and replaces the site line
    keeping the sources' records byte for byte."""
    out = tmp_path / "site"
    site.build([logs], out, site.BuildOptions())
    path = state_path(out)
    before = path.read_bytes()
    record = read_site(path)
    assert record == state(out)["site"]
    replace_site(path, {**record, "request": "the command line"})
    after = path.read_bytes()
    assert after.split(b"\n")[0] == before.split(b"\n")[0] and after.split(b"\n")[2] == before.split(b"\n")[2]
    assert state(out)["site"]["request"] == "the command line" == read_site(path)["request"]
