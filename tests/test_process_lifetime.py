"""Nothing a build starts outlives it: when `replay-site build -j 3` exits, or build() returns
in-process, its workers, and its fork server and multiprocessing's resource tracker when it
needed them, have all exited. Two workers are forced (-j 3: the build itself is the third
process that runs tasks), so even the small example logs start them all. The build's processes are sampled from /proc while it runs; the check comes
right after it returns, with no grace period (before, the helpers ended only after the
process that built). `replay-site build` runs no other thread, so it forks its workers
itself, two for each pass, and starts no helper but the price lookup's process, before the
workers (costs/lookup.py), which ends with the build at the latest; a build() called while this test's sampler thread runs has its
workers forked by a fork server, the same two for both passes. A build that reads in its own
process has the secret scanner's catalogue loaded by a scanning process of its own; like the
catalogue, it stays for the next build in the same process, and ends with that process."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from processtools import command, descendants, name, running

from replay_site.runtime.worker_pool import WORKER_NAME
from replay_site.catalogue import SCANNING_PROCESS_NAME
from replay_site.costs.lookup import LOOKUP_PROCESS_NAME

from replay_site.pipeline import stages as site

DATA = Path(__file__).parent / "data"
GENERATOR = Path(__file__).resolve().parents[1] / "generator"
ENTRY = "import sys; from replay_site.cli.entry import main; sys.argv[0] = 'replay-site'; main()"

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the build's processes through /proc")


class Sampler(threading.Thread):
    """Every few ms, the build's workers and multiprocessing's helpers (fork server, resource
    tracker) under `root` that were not there when sampling began: pid -> what it is."""

    def __init__(self, root: int) -> None:
        super().__init__()
        self.root, self.seen, self.done = root, {}, threading.Event()
        self.streams: dict[int, list[str]] = {}  # a scanning process's stdout and stderr
        self.before = descendants(root)

    def run(self) -> None:
        while not self.done.is_set():
            for pid in descendants(self.root) - self.before:  # again: a worker names itself once started
                if name(pid) == WORKER_NAME.decode():
                    self.seen[pid] = "worker"
                elif name(pid) == SCANNING_PROCESS_NAME.decode():
                    self.seen[pid] = "scanner"
                    self.streams.setdefault(pid, streams_of(pid))
                elif name(pid) == LOOKUP_PROCESS_NAME.decode():
                    self.seen[pid] = "prices"
                elif pid not in self.seen and "multiprocessing" in (line := command(pid)):
                    self.seen[pid] = line
            time.sleep(0.005)

    def stop(self) -> dict[int, str]:
        self.done.set()
        self.join()
        return self.seen


def streams_of(pid: int) -> list[str]:
    try:
        return [os.readlink(f"/proc/{pid}/fd/{stream}") for stream in (1, 2)]
    except OSError:
        return []


def check_none_left(seen: dict[int, str], workers: int = 2) -> None:
    alive = [line for pid, line in seen.items() if running(pid)]
    assert not alive, f"still running after the build: {alive}"
    assert list(seen.values()).count("worker") == workers, f"not every worker seen, so nothing was checked: {seen}"


def test_build_returns_with_no_process_of_its_own_left(tmp_path):
    sampler = Sampler(os.getpid())
    sampler.start()
    try:
        site.build([DATA], tmp_path / "site", site.BuildOptions(jobs=3, incremental=False))
    finally:
        seen = sampler.stop()
    check_none_left(seen)
    assert sum("multiprocessing.forkserver" in line for line in seen.values()) == 1, seen


def watched_build(tmp_path: Path, *arguments: str) -> Sampler:
    """`replay-site build ARGUMENTS`, run to its end while a Sampler watches its processes."""
    env = {**os.environ, "PYTHONPATH": str(GENERATOR), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    errors = tmp_path / "stderr"
    with errors.open("wb") as stderr:  # not a pipe: waiting for its end would wait for the helpers too
        build = subprocess.Popen([sys.executable, "-c", ENTRY, "build", *arguments], env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        sampler = Sampler(build.pid)
        sampler.start()
        try:
            build.wait(timeout=300)
        finally:
            sampler.stop()
    assert build.returncode == 0, errors.read_text()
    return sampler


def test_replay_site_build_exits_with_no_process_of_its_own_left(tmp_path):
    seen = watched_build(tmp_path, str(DATA), "-o", str(tmp_path / "site"), "-q", "-j", "3").seen
    check_none_left(seen, workers=4)  # forked for each pass (worker_pool.PassPools)
    # the price lookup's process (an empty price memo: costs/lookup.py), and no other helper
    assert sorted(set(seen.values())) == ["prices", "worker"], f"helpers started: {seen}"


def test_a_rebuild_after_an_appended_turn_leaves_no_scanner_process(tmp_path):
    """The console entry has the secret scanner's catalogue loaded by a process of its own
    when a few logs changed (catalogue.start_scanner): gone when the rebuild exits."""
    logs = tmp_path / "logs"
    shutil.copytree(DATA / "gptme", logs)
    arguments = (str(logs), "-o", str(tmp_path / "site"), "-q")
    watched_build(tmp_path, *arguments)
    log = next(logs.rglob("*.jsonl"))
    log.write_text(log.read_text() + json.dumps({"role": "user", "content": "one more question", "timestamp": "2026-11-23T09:00:00"}) + "\n")
    sampler = watched_build(tmp_path, *arguments)
    seen = sampler.seen
    # alone: no price lookup's process, the price memo having the log's models (costs.table.prices_ahead)
    assert list(seen.values()) == ["scanner"], f"the scanner's process not seen alone, so nothing was checked: {seen}"
    check_none_left(seen, workers=0)
    # a pipe the build writes to (`replay-site build | tee`) ends with the build, not with it
    assert list(sampler.streams.values()) == [[os.devnull, os.devnull]], sampler.streams
