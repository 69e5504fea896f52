"""Worker processes change nothing but the time: a build with two workers writes the same
bytes as a build in one process. The build process runs items itself beside its workers
(worker_pool.WorkerPool.map), and hands on every result, or an item's error, in the items' order."""
from __future__ import annotations

import gc
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from gen_long_session import write_long_claude_session

from concurrent.futures import Future

from replay_site.pipeline import page_ranges, spool
from replay_site.runtime import task_memory
from replay_site.pipeline import stages as site
from replay_site.runtime.worker_pool import PassPools, WorkerPool
from replay_site.costs import table
from replay_site.load import StreamedRead, load_session
from replay_site.model import CostTotal
from replay_site.pages import paging
from replay_site.pages.render import EarlySteps, Renderer
from replay_site.redact import NotTheSame

DATA = Path(__file__).parent / "data"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_parallel_and_serial_builds_are_byte_identical(tmp_path):
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    site.build([DATA], serial, site.BuildOptions(jobs=1, incremental=False))
    site.build([DATA], parallel, site.BuildOptions(jobs=2, incremental=False))
    pages = snapshot(serial)
    assert len([name for name in pages if name.startswith("sessions/")]) > 10
    assert snapshot(parallel) == pages


# Run in a fresh interpreter: the console entry's build runs no other thread, so it forks its
# workers (a process running other threads, as a test run may, uses a fork server's, which stay).
_TAKEN_BACK = """
import json, multiprocessing, sys
from pathlib import Path
from replay_site.pipeline import stages as site
taken, original = [], site._taken_back

def recording(per_source, places):
    taken.append([len(multiprocessing.active_children()), len(places), sum(len(state.summaries) for state in per_source)])
    return original(per_source, places)

site._taken_back = recording
result = site.build([Path(sys.argv[1])], Path(sys.argv[2]), site.BuildOptions(jobs=2, incremental=False))
print(json.dumps({"taken": taken, "summaries": len(result.summaries)}))
"""


def test_what_pass_one_makes_of_each_source_waits_on_disk_while_workers_run(tmp_path):
    """Issue 20: with workers, each source's summaries, problems and file states from pass 1
    are set aside in a file, not held by the build while pass 1 reads (they grew it to its
    peak) nor while pass 2's workers run beside it; it takes them back once each pass's
    workers have ended, for the same site as a build in one process."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "generator"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    run = subprocess.run([sys.executable, "-c", _TAKEN_BACK, str(DATA), str(tmp_path / "site")],
                         env=env, capture_output=True, text=True, check=True)
    found = json.loads(run.stdout.splitlines()[-1])
    sources = len(site.discover([DATA], site.pick_readers("auto"), []))
    assert found["taken"] == [[0, sources, 0], [0, sources, 0]]  # after pass 1, after pass 2: no worker, no summary held
    assert found["summaries"] > 10


def test_rendering_leaves_frozen_objects_frozen(tmp_path):
    """A worker forked from the fork server shares its frozen objects page by page: rendering
    must not thaw them (gc.unfreeze would), and it gives back the collector's thresholds."""
    gc.freeze()
    frozen, thresholds = gc.get_freeze_count(), gc.get_threshold()
    try:
        site.build([DATA / "glue"], tmp_path / "site", site.BuildOptions(jobs=1, incremental=False))
        # (fewer by the frozen objects freed meanwhile; gc.unfreeze would leave none)
        assert gc.get_freeze_count() > frozen // 2 and gc.get_threshold() == thresholds
    finally:
        gc.unfreeze()


def square_where(item: int) -> tuple[int, int]:
    time.sleep(0.02)  # long enough that the worker and this process both take items
    if item == 13:
        raise ValueError("item 13")
    return item * item, os.getpid()


def test_the_build_process_runs_items_beside_its_worker():
    with WorkerPool(2, multiprocessing.get_context("fork")) as pool:
        results = list(pool.map(square_where, range(12)))
    assert [square for square, _ in results] == [item * item for item in range(12)]
    # two processes ran the items: this one and the pool's one worker
    assert {pid for _, pid in results} - {os.getpid()} and os.getpid() in {pid for _, pid in results}


def test_freed_memory_is_given_back_once_the_process_grew_since_it_last_was(monkeypatch):
    """A task's end trims the heap only when the resident size is _TRIM_AFTER_GROWTH above its
    least since the last trim: not after every small task, whose pages the next one reuses."""
    mib = 1 << 20
    resident = [100 * mib]
    trims = []
    monkeypatch.setattr(task_memory, "_resident_bytes", lambda: resident[0])
    monkeypatch.setattr(task_memory, "release_freed_memory", lambda: trims.append(resident[0]))
    monkeypatch.setattr(task_memory, "_resident_floor", None)
    growth = task_memory._TRIM_AFTER_GROWTH
    for size, trimmed in [(100, True), (100 + growth // mib // 2, False), (100 + growth // mib - 1, False), (90, False),
                          (90 + growth // mib, True), (95, False)]:
        resident[0] = size * mib
        task_memory.run_then_release(lambda: None)
        assert bool(trims and trims[-1] == size * mib) == trimmed, size
        trims.clear()
    monkeypatch.setattr(task_memory, "_resident_bytes", lambda: None)  # unknown: always given back
    task_memory.run_then_release(lambda: None)
    assert trims == [95 * mib]


_SMAPS = """\
55d0c000-55d0d000 r--p 00000000 08:01 11 /usr/bin/python3.11
Rss:                   4 kB
Anonymous:             0 kB
55d0d000-55d0f000 r-xp 00001000 08:01 11 /usr/bin/python3.11
Rss:                   8 kB
Anonymous:             0 kB
7f00a000-7f00c000 r-xp 00002000 08:01 12 /opt/lib/relocated text.so
Rss:                   8 kB
Anonymous:             4 kB
7f00b000-7f00c000 r--p 00003000 08:01 12 /opt/lib/relocated text.so
Rss:                   4 kB
Anonymous:             4 kB
7f00c000-7f00d000 rw-p 00004000 08:01 12 /opt/lib/relocated text.so
Rss:                   4 kB
Anonymous:             4 kB
7f00e000-7f00f000 r-xp 00000000 00:00 0
Rss:                   4 kB
Anonymous:             4 kB
7ffd1000-7ffd2000 r-xp 00000000 00:00 0                          [vdso]
Rss:                   4 kB
Anonymous:             0 kB
"""


def test_only_library_pages_as_the_files_hold_them_are_let_go():
    """Read-only file mappings with no page of their own (relocated data, text relocations),
    nothing writable, no anonymous code (a JIT's, libffi's trampolines) and no kernel page."""
    assert task_memory._file_mappings(_SMAPS.splitlines()) == [(0x55D0C000, 0x55D0D000), (0x55D0D000, 0x55D0F000)]


def _resident_kib(library: str) -> int:
    """This process's resident pages of `library`'s read-only file mappings that hold only
    its file's bytes (no relocated page), in KiB."""
    resident, counted, rss = 0, False, 0
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if "-" in fields[0] and len(fields) >= 5:
                counted = fields[1] in ("r-xp", "r--p") and len(fields) > 5 and library in fields[-1]
            elif fields[0] == "Rss:":
                rss = int(fields[1])
            elif fields[0] == "Anonymous:" and counted and fields[1] == "0":
                resident += rss
    return resident


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="Linux only")
def test_library_pages_let_go_are_mapped_back_when_run_again():
    """drop_library_pages takes the pages this process read of a library (orjson's, which
    nothing runs meanwhile) out of its memory, and running the library again maps them back
    in from its file: the process goes on."""
    import orjson

    orjson.loads(orjson.dumps({"warm": [1, 2.5, "x"]}))
    assert _resident_kib("orjson") > 0
    task_memory.drop_library_pages()
    assert _resident_kib("orjson") == 0
    assert orjson.loads(orjson.dumps({"again": [1, 2.5, "x"]})) == {"again": [1, 2.5, "x"]}
    assert _resident_kib("orjson") > 0


def test_an_items_error_reaches_the_caller_after_the_results_before_it():
    handed = []
    with pytest.raises(ValueError, match="item 13"), WorkerPool(2, multiprocessing.get_context("fork")) as pool:
        for square, _ in pool.map(square_where, range(20)):
            handed.append(square)
    assert handed == [item * item for item in range(13)]


def catalogue_loaded(_item: int) -> tuple[bool, int]:
    from replay_site.catalogue import _load_scanner

    time.sleep(0.02)  # long enough that the worker and this process both take items
    return _load_scanner.cache_info().currsize > 0, os.getpid()


def test_pass_two_runs_in_processes_without_the_catalogue():
    """Pass 1 redacts in processes that share the scanner's catalogue; pass 2 writes pages
    from the spool in this process and workers forked anew once it has dropped it."""
    with PassPools(2, multiprocessing.get_context("fork")) as pools:
        reading = list(pools.map(catalogue_loaded, range(12)))
        pools.reading_done(lambda: None)
        writing = list(pools.map(catalogue_loaded, range(12)))
    assert all(loaded for loaded, _ in reading)
    assert not any(loaded for loaded, _ in writing)
    readers, writers = {pid for _, pid in reading}, {pid for _, pid in writing}
    assert len(readers) == len(writers) == 2 and readers & writers == {os.getpid()}


LONG_STEPS = 2_000  # 10 pages: shared among two workers as 4 ranges of pages, among three as 5 (page_ranges._bounds)


@pytest.fixture(scope="module")
def long_log(tmp_path_factory) -> Path:
    return write_long_claude_session(tmp_path_factory.mktemp("long") / "-home-dev-long" / "long.jsonl", LONG_STEPS)


def ranges_planned(monkeypatch) -> list[list]:
    """The page ranges each build's pass 2 planned (pipeline._pass_two runs in the build's process)."""
    planned: list[list] = []
    original = site._pass_two

    def recording(*args):
        ranges, executor = original(*args)
        planned.append(ranges)
        return ranges, executor

    monkeypatch.setattr(site, "_pass_two", recording)
    return planned


def test_a_long_sessions_pages_written_by_range_in_several_workers_are_the_same_bytes(tmp_path, long_log, monkeypatch):
    planned = ranges_planned(monkeypatch)
    # -j 0 reads these few MiB in this process, its workers for the pages started meanwhile as
    # for a log this large (pipeline._page_workers)
    monkeypatch.setattr(site, "LONG_SOURCE_BYTES", long_log.stat().st_size)
    sites = {}
    for jobs in (1, 2, 3, 0):
        sites[jobs] = tmp_path / f"j{jobs}"
        site.build([DATA / "glue", long_log], sites[jobs], site.BuildOptions(jobs=jobs, incremental=False))
    # one process writes the session whole; two workers share its 10 pages as 4 ranges, each a
    # quarter of the pages left (the last what is left), three as 5, each a sixth (2 at least)
    assert [[(r.pages.start, r.pages.stop) for r in ranges] for ranges in planned[:3]] == [
        [], [(1, 4), (4, 6), (6, 8), (8, 11)], [(1, 3), (3, 5), (5, 7), (7, 9), (9, 11)]]
    assert len(planned[3]) == (0 if os.cpu_count() == 1 else min(5, 2 * os.cpu_count()))
    pages = snapshot(sites[1])
    slug = planned[1][0].nav.slug
    # every page, its search shard and word list (both gathered from the ranges' parts)
    assert {f"sessions/{slug}/{k}.html" for k in range(2, 11)} | {f"assets/search/{slug}.js", f"assets/search/{slug}.terms"} <= set(pages)
    for jobs in (2, 3, 0):
        assert snapshot(sites[jobs]) == pages, jobs


def test_a_range_that_fails_turns_only_its_session_into_its_notice_page(tmp_path, long_log, monkeypatch):
    planned = ranges_planned(monkeypatch)
    recording = site._pass_two

    def damaging_page_7(*args):
        """Page 7's steps damaged in the spool once pass 1 is done (on disk, so whatever way the
        workers are started): reading them raises where the renderer asks for them, in the
        third of the four ranges two workers write, or midway through one worker's session."""
        ranges, executor = recording(*args)
        (long,) = [state for state in args[-1] if state.summaries and state.summaries[0].steps == LONG_STEPS]
        with open(long.spooled, "r+b") as stream:
            ((_, pages),) = spool._index(stream)
            stream.seek(pages[6])
            stream.write(b"\0" * 8)
        return ranges, executor

    monkeypatch.setattr(site, "_pass_two", damaging_page_7)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # where the spool folder goes
    (tmp_path / "tmp").mkdir()
    sites, results = {}, {}
    for jobs in (1, 2):
        sites[jobs] = tmp_path / f"j{jobs}"
        results[jobs] = site.build([DATA / "glue", long_log], sites[jobs], site.BuildOptions(jobs=jobs, incremental=False))
    assert len(planned[1]) == 4
    slug = planned[1][0].nav.slug
    pages = snapshot(sites[1])
    assert snapshot(sites[2]) == pages
    for result in results.values():
        (failed,) = [str(p) for p in result.problems if "could not be rendered" in p.message]
        assert "UnpicklingError" in failed and "long.jsonl" in failed
    # the session is its notice page alone: no other page, no side file, no search shard
    assert [name for name in pages if slug in name] == [f"sessions/{slug}.html"]
    assert "UnpicklingError" in pages[f"sessions/{slug}.html"].decode()
    assert len([name for name in pages if name.startswith("sessions/")]) > 1  # the glue sessions' pages
    assert not list((tmp_path / "tmp").iterdir())  # the spool and the ranges' shard parts removed


class _PassTwoHere:
    """Pass 2's workers of a -j 0 build (pipeline._page_workers) as this process: each task
    run when it is given, so that every page handed on early is rendered before pass 1 goes on."""

    processes = 2

    def __enter__(self):
        return self

    def __exit__(self, *_exc) -> None:
        return None

    @staticmethod
    def submit(function, *args) -> Future:
        future = Future()
        future.set_result(function(*args))
        return future

    @staticmethod
    def map(function, items):
        return map(function, items)


def test_steps_rendered_while_their_session_is_read_are_taken_where_rendered_for_what_the_page_shows(tmp_path, long_log, monkeypatch):
    """Issue 20: pass 1 hands a streamed session's pages to pass 2's workers as it spools them
    (page_ranges.PagesAhead), which render their steps before the session's end is known; a
    range takes that HTML only where it was rendered with the page's running cost, and the
    site is the same bytes. The first page is not rendered early (its side files' links name
    the session's slug)."""
    site.build([long_log], tmp_path / "j1", site.BuildOptions(jobs=1, incremental=False))
    pages = snapshot(tmp_path / "j1")
    monkeypatch.setattr(site, "_page_workers", lambda *_: _PassTwoHere())
    taken = []
    take = page_ranges._take_early
    monkeypatch.setattr(page_ranges, "_take_early", lambda spooled, page: taken.append(page) or take(spooled, page))
    kept = []
    record = page_ranges.render_early
    monkeypatch.setattr(page_ranges, "render_early", lambda task, options: kept.append(task.first) or record(task, options))
    site.build([long_log], tmp_path / "j0", site.BuildOptions(jobs=0, incremental=False))
    assert snapshot(tmp_path / "j0") == pages
    assert kept == [2, 6]  # a part of 1,000 steps is 5 pages
    assert taken == list(range(1, 11))

    early_steps = Renderer.early_steps

    def marked(self, number, steps, before):
        """Odd pages' HTML marked, even pages' rendered for another running cost."""
        early = early_steps(self, number, steps, before)
        if number % 2:
            return EarlySteps(early.before, f"<!-- early {number} -->", early.side_files)
        return EarlySteps(CostTotal(usd=-1.0), "<!-- not for this page -->", {})

    monkeypatch.setattr(Renderer, "early_steps", marked)
    site.build([long_log], tmp_path / "marked", site.BuildOptions(jobs=0, incremental=False))
    marked_pages = snapshot(tmp_path / "marked")
    (slug,) = {name.split("/")[1] for name in pages if name.startswith("sessions/") and name.count("/") == 2}
    for number in range(2, 11):
        name = f"sessions/{slug}/{number}.html"
        if number % 2:
            assert f"<!-- early {number} -->".encode() in marked_pages[name]
        else:
            assert marked_pages[name] == pages[name]


def test_a_text_cut_on_a_page_rendered_early_is_written_beside_it(tmp_path, long_log, monkeypatch):
    """A range that takes a page's steps' HTML rendered early makes no views of its steps
    (views.StepViews): the full texts cut on the page come with that HTML, and are written
    under the session's own folder as a page rendered in one process writes them."""
    lines = long_log.read_text().splitlines(keepends=True)
    results = [number for number, line in enumerate(lines) if '"tool_result"' in line]
    at = results[len(results) // 2]  # on page 5 or 6 of 10
    long_output = "".join(f"line {k} of a long output\n" for k in range(4000))  # over FIELD_LIMIT
    lines[at] = json.dumps(_with_output(json.loads(lines[at]), long_output)) + "\n"
    log = tmp_path / "-home-dev-long" / "long.jsonl"
    log.parent.mkdir()
    log.write_text("".join(lines))
    site.build([log], tmp_path / "j1", site.BuildOptions(jobs=1, incremental=False))
    pages = snapshot(tmp_path / "j1")
    side = [name for name in pages if "/outputs/" in name]
    assert side and long_output.encode() in pages[side[0]]
    monkeypatch.setattr(site, "_page_workers", lambda *_: _PassTwoHere())
    taken = []
    take = page_ranges._take_early
    monkeypatch.setattr(page_ranges, "_take_early", lambda spooled, page: taken.append(take(spooled, page)) or taken[-1])
    site.build([log], tmp_path / "j0", site.BuildOptions(jobs=0, incremental=False))
    assert snapshot(tmp_path / "j0") == pages
    assert any(early is not None and early.side_files for early in taken)


def _with_output(line: dict, output: str) -> dict:
    line["message"]["content"][0]["content"] = output
    line["toolUseResult"] = output
    return line


def test_the_models_a_long_log_names_first_are_looked_up_ahead_for_the_build(long_log, monkeypatch):
    """The models the first lines of a log to read name are looked up by a process of its own
    while the build starts (table.prices_ahead); the build's process then prices every step
    from its price memo, with no other lookup, and never imports genai-prices."""
    table.resolve.cache_clear()
    table._memo.cache_clear()
    table._memo_path().unlink(missing_ok=True)
    imported = "genai_prices" in sys.modules
    with table.prices_ahead([long_log]):
        table.take_prices_ahead()
    assert table._memo() and ("genai_prices" in sys.modules) == imported

    def refuse(*args, **kwargs):
        raise AssertionError("a model was looked up though the lookup ahead found the log's models")

    monkeypatch.setattr(table, "looked_up", refuse)
    session = load_session(str(long_log), [])
    assert session.cost.priced_steps == sum(1 for step in session.steps if step.usage) > 0
    table.resolve.cache_clear()
    table._memo.cache_clear()


def test_a_worker_rendering_pages_early_stops_once_pass_one_ends(tmp_path, long_log):
    """PagesAhead.stop: a task already with a worker when the ranges start renders no more
    pages (the ranges would render them at the same time); one not started yet is cancelled."""
    steps = load_session(str(long_log), []).steps
    writer = spool.SpoolWriter(tmp_path / "0.pickle")
    for page in paging.pages_of(steps):
        writer.page(page)
    offsets = writer.flush()
    options = site.BuildOptions(incremental=False)
    page_ranges.render_early(page_ranges.EarlyPages(str(tmp_path / "0.pickle"), 2, offsets[1:3], (None, None)), options)
    assert sorted(path.name for path in tmp_path.glob("*.steps")) == ["0.pickle.2.steps", "0.pickle.3.steps"]

    running, waiting = Future(), Future()  # what the pool made of the two tasks handed on below
    running.set_running_or_notify_cancel()
    futures = iter([running, waiting])

    class Pool:
        @staticmethod
        def submit(*_) -> Future:
            return next(futures)

    ahead = page_ranges.PagesAhead(Pool(), options)
    for first in (4, 6):
        ahead(str(tmp_path / "0.pickle"), first, offsets[first - 1:first + 1], (None, None))
    ahead.stop()
    assert waiting.cancelled()
    page_ranges.render_early(page_ranges.EarlyPages(str(tmp_path / "0.pickle"), 4, offsets[3:5], (None, None)), options)
    assert sorted(path.name for path in tmp_path.glob("*.steps")) == ["0.pickle.2.steps", "0.pickle.3.steps"]


def test_pages_rendered_early_from_a_stream_pass_one_abandons_are_not_taken(tmp_path, long_log, monkeypatch):
    """A streamed session found at its end to differ from a whole reading (redact.NotTheSame)
    is read whole into a spool file of the same name: what was rendered early from the
    stream must not stand in its pages."""
    site.build([long_log], tmp_path / "j1", site.BuildOptions(jobs=1, incremental=False))
    monkeypatch.setattr(site, "_page_workers", lambda *_: _PassTwoHere())
    monkeypatch.setattr(Renderer, "early_steps", lambda self, number, steps, before: EarlySteps(before, "<!-- early -->", {}))

    def not_the_same(self):
        raise NotTheSame("found late")

    monkeypatch.setattr(StreamedRead, "session", not_the_same)
    site.build([long_log], tmp_path / "j0", site.BuildOptions(jobs=0, incremental=False))
    assert snapshot(tmp_path / "j0") == snapshot(tmp_path / "j1")
