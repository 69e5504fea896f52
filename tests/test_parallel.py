"""Builds in worker processes (runtime/processes.py): the same bytes as a build in one process,
one pool for every pass, results in order, a failing task stopping the build with its
workers, and a threaded program building in its own process."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from gen_long_session import write_long_claude_session
from processtools import running

from replay_site.runtime import InlineExecutor, executor_for
from replay_site.runtime.processes import ProcessExecutor

DATA = Path(__file__).parent / "data"
GENERATOR = Path(__file__).resolve().parents[1] / "generator"
# In a fresh interpreter: the test run may hold other threads, and a threaded program builds in its own process.
BUILD = ("import sys; from pathlib import Path; from replay_site.pipeline import stages as site\n"
         "site.build([Path(p) for p in sys.argv[3:]], Path(sys.argv[1]), site.BuildOptions(jobs=int(sys.argv[2]), incremental=False))")


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def built(tmp_path: Path, name: str, jobs: int, *sources: Path) -> dict[str, bytes]:
    env = {**os.environ, "PYTHONPATH": str(GENERATOR), "XDG_CACHE_HOME": str(tmp_path / f"cache-{name}")}
    subprocess.run([sys.executable, "-c", BUILD, str(tmp_path / name), str(jobs), *map(str, sources)], env=env, check=True, timeout=600)
    return snapshot(tmp_path / name)


def test_parallel_and_serial_builds_are_byte_identical(tmp_path):
    pages = built(tmp_path, "serial", 1, DATA)
    assert len([name for name in pages if name.startswith("sessions/")]) > 10
    assert built(tmp_path, "parallel", 2, DATA) == pages


def test_a_long_session_streamed_in_a_worker_gives_the_same_bytes(tmp_path):
    """A 2,000-step session (10 pages) is read as a stream and spooled a part at a time: in a
    worker beside a small source as in one process."""
    log = write_long_claude_session(tmp_path / "logs" / "-home-dev-long" / "long.jsonl", 2_000)
    pages = built(tmp_path, "serial", 1, log.parents[1], DATA / "glue")
    assert len([name for name in pages if name.startswith("sessions/") and name.endswith(".html")]) >= 10
    assert built(tmp_path, "parallel", 2, log.parents[1], DATA / "glue") == pages


def square_and_pid(item: int) -> tuple[int, int]:
    time.sleep(0.01)
    if item == 13:
        raise ValueError("item 13")
    return item * item, os.getpid()


def test_one_pool_of_workers_serves_every_pass_in_order():
    with ProcessExecutor(2) as executor:
        first = list(executor.map(square_and_pid, range(12)))
        second = list(executor.map(square_and_pid, range(12)))
        placed = list(executor.map_placed(square_and_pid, range(3)))
    assert [square for square, _ in first] == [item * item for item in range(12)] == [square for square, _ in second]
    processes = {pid for _, pid in first}
    assert os.getpid() in processes and len(processes) == 2  # two at work: this process and one worker
    assert {pid for _, pid in second} <= processes  # the same processes: no pool forked anew
    assert [place for _, place in placed] == [None] * 3


@pytest.mark.parametrize("items", [40, 16], ids=["failing in a worker", "failing in this process"])
def test_a_failing_task_reaches_the_caller_after_the_results_before_it_and_its_workers_end(items):
    handed = []
    with pytest.raises(ValueError, match="item 13"), ProcessExecutor(2) as executor:
        workers = list(executor._pool._processes)
        for square, _ in executor.map(square_and_pid, range(items)):
            handed.append(square)
    assert handed == [item * item for item in range(13)]
    assert not [pid for pid in workers if running(pid)]


def test_a_program_running_other_threads_builds_in_its_own_process():
    if threading.active_count() == 1:  # (a browser test earlier in the run may have left a thread)
        assert isinstance(executor_for(2, 1 << 30, 10), ProcessExecutor)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert isinstance(executor_for(2, 1 << 30, 10), InlineExecutor)
    finally:
        stop.set()
        thread.join()


# In a fresh interpreter: the catalogue loading in a thread while the build plans, then the
# workers forked once it is loaded, each finding it loaded (shared, not loaded again).
SHARED_CATALOGUE = """
import threading
from replay_site import catalogue
from replay_site.runtime import executor_for
from replay_site.runtime.processes import ProcessExecutor

def loaded(_item):
    return catalogue._load_scanner.cache_info().currsize, [t.name for t in threading.enumerate()]

catalogue.start_loading()
assert threading.active_count() == 2
with executor_for(2, 1 << 30, 10, prepare=catalogue.finish_loading) as executor:
    assert isinstance(executor, ProcessExecutor), executor
    print(sorted(set(map(str, executor.map(loaded, range(4))))))
"""


def test_workers_are_forked_once_the_catalogue_has_loaded_and_share_it():
    env = {**os.environ, "PYTHONPATH": str(GENERATOR)}
    done = subprocess.run([sys.executable, "-c", SHARED_CATALOGUE], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(["(1, ['MainThread'])"])


def test_small_builds_stay_in_one_process():
    assert isinstance(executor_for(0, 1 << 20, 10), InlineExecutor)
    assert isinstance(executor_for(1, 1 << 30, 10), InlineExecutor)


def test_the_render_reads_what_the_read_spooled_not_the_logs(tmp_path, monkeypatch):
    """Each log is read once: with every log gone between the read and the render, the site is
    still whole (a page the render could not write would be a notice)."""
    from replay_site.pipeline import stages as site

    logs = tmp_path / "logs"
    shutil.copytree(DATA / "claude", logs)
    site.build([logs], tmp_path / "first", site.BuildOptions(incremental=False))
    render = site._render

    def render_without_logs(*args, **kwargs):
        shutil.rmtree(logs)
        return render(*args, **kwargs)

    monkeypatch.setattr(site, "_render", render_without_logs)
    site.build([logs], tmp_path / "second", site.BuildOptions(incremental=False))
    assert snapshot(tmp_path / "second") == snapshot(tmp_path / "first")


def thresholds(_item: int) -> tuple[int, int, int]:
    import gc

    return gc.get_threshold()


def test_tasks_run_with_the_runtimes_collector_thresholds_and_this_process_gets_its_own_back():
    from replay_site.runtime.collector import TASK_GC_THRESHOLDS
    import gc

    before = gc.get_threshold()
    assert list(InlineExecutor().map(thresholds, [1, 2])) == [TASK_GC_THRESHOLDS] * 2
    assert gc.get_threshold() == before
    with ProcessExecutor(2) as executor:
        assert set(executor.map(thresholds, range(4))) == {TASK_GC_THRESHOLDS}
