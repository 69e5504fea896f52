"""A real dask.distributed cluster on localhost for the tests and the benchmark: a `dask
scheduler` process and N `dask worker` processes (no nanny: killing a worker's process is
losing that worker), on free ports, torn down with the context."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

GENERATOR = Path(__file__).resolve().parents[1] / "generator"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Cluster:
    address: str
    scheduler: subprocess.Popen
    workers: list[subprocess.Popen] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)


@contextmanager
def local_cluster(workers: int, folder: Path, generator: Path = GENERATOR) -> Iterator[Cluster]:
    from distributed import Client

    env = {**os.environ, "PYTHONPATH": str(generator)}
    address = f"tcp://127.0.0.1:{free_port()}"
    common = ["--no-dashboard"]
    started: list[subprocess.Popen] = []

    def start(name: str, command: list[str]) -> subprocess.Popen:
        log = folder / f"{name}.log"
        process = subprocess.Popen([sys.executable, "-m", *command, *common], env=env, stdout=subprocess.DEVNULL,
                                   stderr=log.open("wb"), cwd=folder)
        started.append(process)
        return process

    try:
        scheduler = start("scheduler", ["distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                        "--port", address.rsplit(":", 1)[1]])
        cluster = Cluster(address, scheduler, logs=[folder / "scheduler.log"])
        for number in range(workers):
            cluster.workers.append(start(f"worker{number}", ["distributed.cli.dask_worker", address, "--nthreads", "1",
                                                             "--no-nanny", "--name", f"worker{number}",
                                                             "--listen-address", f"tcp://127.0.0.1:{free_port()}"]))
            cluster.logs.append(folder / f"worker{number}.log")
        with Client(address, timeout=60) as client:
            client.wait_for_workers(workers, timeout=120)
        yield cluster
    finally:
        for process in reversed(started):
            process.kill()
            process.wait(10)
