"""Nothing a build starts outlives it: when `replay-site build -j 3` exits, its two workers (the
build process is the third at work) have all exited, and it started no other process (no fork
server, no resource tracker, no helper). The build's processes are sampled from /proc while it
runs; the check comes right after it returns, with no grace period. A build called in-process while another thread runs (this
test's sampler) runs in that process alone: it starts no process at all."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from processtools import command, descendants, name, running

from replay_site.pipeline import stages as site
from replay_site.runtime.processes import WORKER_NAME

DATA = Path(__file__).parent / "data"
GENERATOR = Path(__file__).resolve().parents[1] / "generator"
ENTRY = "import sys; from replay_site.cli.entry import main; sys.argv[0] = 'replay-site'; main()"

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the build's processes through /proc")


class Sampler(threading.Thread):
    """Every few ms, the processes under `root` that were not there when sampling began: pid ->
    "worker" for the build's workers (each names itself), else its command line."""

    def __init__(self, root: int) -> None:
        super().__init__()
        self.root, self.seen, self.done = root, {}, threading.Event()
        self.before = descendants(root)

    def run(self) -> None:
        while not self.done.is_set():
            for pid in descendants(self.root) - self.before:  # again: a worker names itself once started
                if name(pid) == WORKER_NAME.decode():
                    self.seen[pid] = "worker"
                elif pid not in self.seen:
                    self.seen[pid] = command(pid)
            time.sleep(0.005)

    def stop(self) -> dict[int, str]:
        self.done.set()
        self.join()
        return self.seen


def test_a_build_in_a_threaded_program_starts_no_process(tmp_path):
    sampler = Sampler(os.getpid())
    sampler.start()
    try:
        site.build([DATA], tmp_path / "site", site.BuildOptions(jobs=3, incremental=False))
    finally:
        seen = sampler.stop()
    assert seen == {}


def watched_build(tmp_path: Path, *arguments: str) -> Sampler:
    """`replay-site build ARGUMENTS`, run to its end while a Sampler watches its processes."""
    env = {**os.environ, "PYTHONPATH": str(GENERATOR), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    errors = tmp_path / "stderr"
    with errors.open("wb") as stderr:  # not a pipe: waiting for its end would wait for any process holding it
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
    alive = [line for pid, line in seen.items() if running(pid)]
    assert not alive, f"still running after the build: {alive}"
    # one pool for both passes, and no other process
    assert list(seen.values()) == ["worker"] * 2, f"not the two workers alone: {seen}"
