"""Worker processes that die with the build (executors.py starts them only for a build with
enough to read: importing multiprocessing costs a rebuild that reads one log in its own
process ~10 ms it does not need).

A worker asks the kernel to kill it when its parent dies (prctl PR_SET_PDEATHSIG, Linux),
and a watchdog thread waits for the build process to end (a pidfd; where that is missing, it
checks every half second). The parent is the build for a spawned worker or one forked from
the build, and the build's fork server for one forked there, which lives as long as any
worker holds its pipe: so the watchdog watches the build itself. A build killed with SIGKILL leaves no worker behind, and with the
workers gone, the fork server and the resource tracker exit too. Ctrl-C
is the parent's to handle: it stops the workers at once instead of waiting for their tasks.
Workers are forked from the build once it has loaded what they all need (or, when the build
runs other threads, from a fork server that has), a pool for each pass (`PassPools`).
"""
from __future__ import annotations

import ctypes
import gc
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.resource_tracker
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager

from replay_site.runtime.task_memory import drop_library_pages, libc, release_freed_memory, run_then_release

_PR_SET_PDEATHSIG = 1
_PR_SET_NAME = 15
WORKER_NAME = b"replay-worker"  # a worker's name in ps and /proc/PID/comm (a forked one shares the build's command line)
_WATCH_SECONDS = 0.5
# The process that started this module's fork server: a process forked from it inherits the
# server's handles but is not its parent, so it uses spawned workers instead.
_fork_server_owner: int | None = None


def _ask_kernel_to_kill_me_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        libc().prctl(_PR_SET_NAME, ctypes.c_char_p(WORKER_NAME), 0, 0, 0)
    except AttributeError:
        pass  # the watchdog below still ends this worker


def _watch(build: int, parent: int, handle: int | None) -> None:
    """Ends this worker when the build ends (its pidfd `handle` turns readable) or when the
    process that started this worker does (it is then adopted by another)."""
    while os.getppid() == parent:
        if handle is None:
            time.sleep(_WATCH_SECONDS)
            try:
                os.kill(build, 0)
            except ProcessLookupError:
                break
        elif select.select([handle], [], [], _WATCH_SECONDS)[0]:
            break
    os._exit(1)


def die_with_parent(build: int) -> None:
    """Pool initializer: bind this worker's life to the build process `build`, which is its
    parent (forked from the build, or spawned) or its parent's (forked by the build's fork server)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a worker forked from the build inherits its handler (entry.py)
    parent = os.getppid()
    _ask_kernel_to_kill_me_with_parent()
    try:
        handle = os.pidfd_open(build)  # Linux 5.3: readable once the build has ended
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):
        handle = None
    if os.getppid() != parent:  # the parent died before the kernel was asked above
        os._exit(1)
    threading.Thread(target=_watch, args=(build, parent, handle), daemon=True, name="build-watchdog").start()


class WorkerPool(ProcessPoolExecutor):
    """A process pool whose workers die with this process, and which, left by an exception
    (Ctrl-C, a write error), kills its workers instead of waiting for their tasks.

    This process is one of the `processes` that run tasks (`map`): it would otherwise only
    wait for the workers' answers, and each process holds its own copy of whatever it writes
    to, so one worker fewer is one working set fewer in the build's memory (the medium
    benchmark corpus with 2 processes: peak tree PSS 111 -> 97 MiB), for the same cores used."""

    def __init__(self, processes: int, mp_context, scanner: bool = True) -> None:
        self._helpers_before = _helpers_running()  # the pool's queues start the tracker
        forked_here = mp_context.get_start_method() == "fork"
        self._thaw = forked_here and gc.get_freeze_count() == 0  # what to give back to the collector after
        if forked_here:
            load_shared(scanner)
        self.processes = processes  # that run tasks (map), this one included
        self._workers = processes - 1
        super().__init__(self._workers, mp_context=mp_context, initializer=die_with_parent, initargs=(os.getpid(),))
        if forked_here:  # every worker now, before this process starts any thread (a progress bar's)
            with _sigint_blocked():
                self._start_executor_manager_thread()

    def submit(self, *args, **kwargs):
        with _sigint_blocked():
            return super().submit(run_then_release, *args, **kwargs)

    def map(self, function, items):
        """`function` over `items`, the results in the items' order as they come. The workers
        and this process each take the next item nobody has taken whenever they are free, so
        one long item holds up neither: a thread keeps every worker two items deep (the second
        waits in its queue, so it never idles between items) while this process runs items
        itself between handing on results."""
        items = list(items)
        results: list[Future | None] = [None] * len(items)
        taking = _Taker(len(items))
        feeder = threading.Thread(target=self._feed, args=(function, items, results, taking),
                                  daemon=True, name="worker-feeder")
        feeder.start()
        handed = 0
        try:
            while (index := taking.next()) is not None:
                results[index] = _done(run_then_release, function, items[index])
                while handed < len(items) and results[handed] is not None and results[handed].done():
                    yield results[handed].result()
                    results[handed], handed = None, handed + 1
            for index in range(handed, len(items)):  # every item is taken, so each has its future
                yield results[index].result()
                results[index] = None
        except BaseException:  # a failed item, Ctrl-C, or the consumer stopped early
            taking.stop()  # the feeder ends once its workers' items have (__exit__ kills them)
            raise
        feeder.join()  # at once: its last futures are done

    def _feed(self, function, items, results: list[Future | None], taking: _Taker) -> None:
        running: set[Future] = set()
        while True:
            while len(running) < 2 * self._workers:
                with taking.lock:  # the future is in place before map can see every item taken
                    if (index := taking.next_locked()) is None:
                        break
                    try:
                        results[index] = future = self.submit(function, items[index])
                    except RuntimeError as error:  # shut down or broken: map raises it in its turn
                        results[index] = _failed(error)
                        return
                running.add(future)
            if not running:
                return
            running = wait(running, return_when=FIRST_COMPLETED)[1]

    def __exit__(self, exc_type, exc, traceback):
        try:
            return self._stop_workers(exc_type, exc, traceback)
        finally:
            _stop_helpers(self._helpers_before)
            if self._thaw:  # what this process froze for its forked workers
                gc.unfreeze()
            _release_shared()

    def _stop_workers(self, exc_type, exc, traceback):
        if exc_type is None:
            return super().__exit__(exc_type, exc, traceback)
        # the executor has no public way to stop running tasks; its process table is the way in
        processes = list((self._processes or {}).values())
        for process in processes:
            process.kill()
        self.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.join(1)
        return False


class PassPools:
    """Pass 1's workers, forked with the secret scanner's catalogue to redact, then pass 2's,
    forked without it once pass 1's have ended (reading_done): pages come from the spool and
    never redact. Dropping the catalogue where it is shared writes to (and so copies) the
    pages it frees; with pass 1's workers gone, this process holds them alone and gives them
    back as they are (the medium benchmark corpus, 2 processes: pass 2's tree PSS ~97 -> ~74 MiB, sampled as the benchmark does)."""

    def __init__(self, processes: int, mp_context) -> None:
        self.processes = processes
        self._context = mp_context
        self._pool = WorkerPool(processes, mp_context)

    def __enter__(self):
        return self

    def map(self, function, items):
        if self._pool is None:  # between the passes: nothing to map but an empty pass 2
            return (run_then_release(function, item) for item in items)
        return self._pool.map(function, items)

    def submit(self, *args, **kwargs):
        return self._pool.submit(*args, **kwargs)

    def end_workers(self) -> None:
        """The workers forked from this process end (WorkerPool's exit; this process drops
        the catalogue): pass 1's before the build takes in what they read, pass 2's before it
        takes the summaries back (pipeline.py). Workers from a fork server stay for pass 2
        (reading_done), and to the end."""
        if self._pool is not None and self._context.get_start_method() == "fork":
            self._pool.__exit__(None, None, None)
            self._pool = None

    def reading_done(self, prepare: Callable[[], None]) -> None:
        """Pass 2 has pages to write: pass 1's workers end (end_workers), this process runs
        `prepare` (what every process of pass 2 loads: made once here, it is shared) and forks
        pass 2's. Workers from a fork server keep theirs: it loads the catalogue for every
        worker it forks (worker_preload)."""
        if self._context.get_start_method() != "fork":
            return
        self.end_workers()
        prepare()
        self._pool = WorkerPool(self.processes, self._context, scanner=False)

    def __exit__(self, exc_type, exc, traceback):
        if self._pool is None:
            return False
        return self._pool.__exit__(exc_type, exc, traceback)


class _Taker:
    """Hands out the indexes 0..count-1, each once, to the threads that ask (WorkerPool.map)."""

    def __init__(self, count: int) -> None:
        self.lock = threading.Lock()
        self._next, self._count = 0, count

    def next(self) -> int | None:
        with self.lock:
            return self.next_locked()

    def next_locked(self) -> int | None:
        if self._next >= self._count:
            return None
        self._next += 1
        return self._next - 1

    def stop(self) -> None:
        """No more indexes for anyone (map ended early: its consumer raised or stopped)."""
        with self.lock:
            self._next = self._count


def _failed(error: BaseException) -> Future:
    future = Future()
    future.set_exception(error)
    return future


def _done(function, *args) -> Future:
    """`function(*args)` run here, as a finished future: its error too waits for its turn,
    as a worker's does (Ctrl-C does not wait)."""
    try:
        result = function(*args)
    except Exception as error:  # noqa: BLE001 (raised by map in its turn)
        return _failed(error)
    future = Future()
    future.set_result(result)
    return future


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Workers are started with SIGINT blocked: a process inherits its starter's signal mask,
    so a Ctrl-C during a worker's start-up is the parent's alone too. (A Ctrl-C arriving
    meanwhile is delivered to the parent when the mask is restored.)"""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _helpers_running() -> tuple[bool, bool]:
    """Whether the fork server and the resource tracker (multiprocessing's helper processes,
    started with the first worker) are already running in this process."""
    return (getattr(multiprocessing.forkserver._forkserver, "_forkserver_pid", None) is not None,
            getattr(multiprocessing.resource_tracker._resource_tracker, "_fd", None) is not None)


def _stop_helpers(before: tuple[bool, bool]) -> None:
    """Stop and wait for the helper processes this pool started. Left alone they would end
    only after this process, so that a build's processes outlived `replay-site build` (and
    lived as long as the process that called build() in-process). The next pool starts them
    again. (Python has no public way to stop them: `_stop` is what its own tests use.)"""
    forkserver_before, tracker_before = before
    if not forkserver_before:
        getattr(multiprocessing.forkserver._forkserver, "_stop", lambda: None)()
    if not tracker_before:
        gc.collect()  # the queues' semaphores unregister from the tracker when collected
        getattr(multiprocessing.resource_tracker._resource_tracker, "_stop", lambda: None)()



def worker_context():
    """Workers forked from this process, which loads what they all need first (load_shared),
    so that they share those pages with it: no second copy of the modules in a fork server,
    and no resource tracker (with "fork", multiprocessing's semaphores need none). Forking a
    process that runs other threads can deadlock the children (a lock held at the fork stays
    held in them), so then from a fork server that has loaded the same (worker_preload), or
    spawned where that cannot work either."""
    global _fork_server_owner
    methods = multiprocessing.get_all_start_methods()
    if not hasattr(os, "pidfd_open"):
        return multiprocessing.get_context("spawn")
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if _fork_server_owner not in (None, os.getpid()) or "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    _fork_server_owner = os.getpid()
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["replay_site.pipeline.stages", "replay_site.pipeline.source_passes"])
    return context


def load_shared(scanner: bool = True) -> None:
    """Load what every worker needs besides the modules its tasks run (imported already by
    pipeline.py, which starts the pool, and by the fork server's worker_preload): every
    reader and, unless `scanner` is false (workers that only render), the prices of the models
    the logs' heads name (looked up by a process of its own: costs.table.prices_ahead) and the
    secret scanner's compiled catalogue (~30 MiB on its own); then freeze it all out of the
    garbage collector, whose passes would otherwise write to (and so copy) every page the
    workers share with the process they are forked from. Each
    only warms a cache: what fails here fails again in the worker that needs it, which
    reports it the way the build always does."""
    from replay_site.costs.table import take_prices_ahead
    from replay_site.readers import registry
    from replay_site.redact.detect import load_scanner

    for warm_up in (registry, *([take_prices_ahead, load_scanner] if scanner else [])):
        try:
            warm_up()
        except Exception:  # noqa: BLE001 (see above)
            pass
    gc.collect()  # garbage frozen now would never be collected
    release_freed_memory()  # before the workers share the heap's pages: what is free now need not be
    gc.freeze()
    drop_library_pages()  # what loading ran (the catalogue: kingfisher's loader), before the workers share it


def _release_shared() -> None:
    """What only the passes need goes when they end: the scanner's catalogue, the largest part
    of load_shared's, so that the site-wide files (the index, search, sessions.json of every
    session, all in this process) are made without it (3,000 small sessions: that part's peak
    129 -> 100 MiB). A --compare page loads it again. Only after a pool: a small build keeps
    it for the next build in the same process."""
    from replay_site.catalogue import release_scanner

    release_scanner()
    release_freed_memory()
    drop_library_pages()  # the scans', and pass 2's rendering, which the site-wide files need only part of
