"""`build --scheduler ADDRESS` on a real cluster: a dask scheduler and two dask worker
processes on localhost (tests/clustertools.py). The cluster's site is the local build's,
byte for byte; its tasks ran on the workers (the scheduler's task stream names them); a
worker killed in the middle of a build costs nothing but time (its tasks are run again)."""
from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from benchmark_corpus import claude_corpus
from clustertools import local_cluster
from distributed import Client

from replay_site.pipeline import stages as pipeline
from replay_site.runtime.cluster import ClusterUnavailable, DaskExecutor
from replay_site.discover import discover, pick_readers

DATA = Path(__file__).parent / "data"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(2, tmp_path_factory.mktemp("cluster")) as running:
        yield running


def site_bytes(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_a_cluster_build_writes_the_local_build_bytes_on_the_workers(cluster, tmp_path):
    local = pipeline.build([DATA], tmp_path / "local", pipeline.BuildOptions(incremental=False))
    with Client(cluster.address) as client:
        client.get_task_stream()  # the scheduler records tasks from now on
        started = time.time()
        remote = pipeline.build([DATA], tmp_path / "cluster", pipeline.BuildOptions(incremental=False, scheduler=cluster.address))
        stream = client.get_task_stream(start=started)
        workers = {info["name"]: address for address, info in client.scheduler_info()["workers"].items()}
    assert remote.summaries == local.summaries
    assert [str(p) for p in remote.problems] == [str(p) for p in local.problems]
    assert site_bytes(tmp_path / "cluster") == site_bytes(tmp_path / "local")
    ran = {}
    for task in stream:
        name = task["key"].split("-")[2]
        ran.setdefault(name, set()).add(task["worker"])
    assert set(ran) == {"read_and_summarize", "write_source_pages"}  # both passes, nothing else
    assert set().union(*ran.values()) == set(workers.values())  # on the two workers, not in this process
    read = [task for task in stream if "read_and_summarize" in task["key"]]
    assert len(read) == len(discover([DATA], pick_readers("auto"), []))  # a task per source
    # each source's pages written on the worker that read it, from what it spooled there: asked
    # for, not forced (a worker gone must not stall its tasks), so the scheduler's work stealing
    # may move a few; a moved one reads the spool where it can, else the log again
    where = {(task["key"].split("-")[2], task["key"].rsplit("-", 1)[1]): task["worker"] for task in stream}
    placed = [where[("write_source_pages", index)] == worker for (name, index), worker in where.items() if name == "read_and_summarize"]
    assert sum(placed) >= 0.75 * len(placed), where


def test_a_cluster_build_reads_each_log_once(cluster, tmp_path, monkeypatch):
    """Issue 28: the render reads what the read spooled on its worker, not the log again: with
    every log gone between the two, the site is still the local build's."""
    logs = tmp_path / "logs"
    shutil.copytree(DATA / "claude", logs)
    local = tmp_path / "local"
    pipeline.build([logs], local, pipeline.BuildOptions(incremental=False))
    render = pipeline._render

    def render_without_logs(*args, **kwargs):
        shutil.rmtree(logs)
        return render(*args, **kwargs)

    monkeypatch.setattr(pipeline, "_render", render_without_logs)
    pipeline.build([logs], tmp_path / "cluster", pipeline.BuildOptions(incremental=False, scheduler=cluster.address))
    assert site_bytes(tmp_path / "cluster") == site_bytes(local)


def test_a_worker_killed_mid_build_still_gives_the_whole_site(tmp_path):
    claude_corpus(tmp_path / "logs", sessions=40, subagents=4, turns=60)
    local = tmp_path / "local"
    pipeline.build([tmp_path / "logs"], local, pipeline.BuildOptions(incremental=False))
    with local_cluster(2, tmp_path) as running:
        done = threading.Event()
        errors: list[BaseException] = []

        def build() -> None:
            try:
                pipeline.build([tmp_path / "logs"], tmp_path / "cluster",
                               pipeline.BuildOptions(incremental=False, scheduler=running.address))
            except BaseException as exc:  # noqa: BLE001 - reported by the test below
                errors.append(exc)
            finally:
                done.set()

        with Client(running.address) as client:
            client.get_task_stream()
            thread = threading.Thread(target=build)
            thread.start()
            deadline = time.time() + 120
            while not any("read_and_summarize" in t["key"] for t in client.get_task_stream()) and time.time() < deadline:
                time.sleep(0.05)
        assert not done.is_set(), "the build ended before a worker could be killed: give it more work"
        os.kill(running.workers[0].pid, signal.SIGKILL)
        thread.join(600)
        assert running.workers[0].wait(10) == -signal.SIGKILL
    assert errors == []
    assert site_bytes(tmp_path / "cluster") == site_bytes(local)


def test_a_scheduler_that_does_not_answer_is_an_error_line(tmp_path):
    from clustertools import free_port

    with pytest.raises(ClusterUnavailable, match="no dask scheduler answers"), \
            DaskExecutor(f"tcp://127.0.0.1:{free_port()}", connect_seconds=1):
        pass
