"""Build-speed benchmark (not a test: speed is measured here, never asserted in tests).

    python tests/benchmark.py --size small|medium|large [--formats claude gptme codex] [--runs 3]
                              [--jobs 0] [--keep DIR] [--long [STEPS ...]] [--huge LOG] [--huge-message MB] [--huge-output MB]
                              [--cluster N [N ...]]

Generates a deterministic corpus (tests/benchmark_corpus.py), then times, each as a fresh
`replay-site build` process (the console entry, so imports count): a cold build (empty
output and cache), a rebuild with nothing changed, one log touched (mtime only), one turn
appended to one log; with --long a 10,000-step and a 50,000-step session (with the time per
step of each: it stays the same when a build is linear in the steps), and with --huge a build
of one given log (the 200 MB single-session one, for instance); with --cluster, cold builds
with --scheduler on a dask.distributed cluster of N single-threaded workers started on this
machine (tests/clustertools.py), for each N given. The floor runs in the same
session: read + orjson-parse every line + escape every string + write the same bytes, with
1 and 2 processes. Medians of --runs alternating runs. Reported per scenario: wall and CPU
seconds, peak PSS of the whole process tree (sampled from /proc/*/smaps_rollup), output
bytes, and the cold build's ratio to the floor. Wall and CPU come from runs whose memory is
not sampled, the peak from one more run that is: reading smaps_rollup walks the page tables
of every process in the tree, in the sampler's time (2.0-2.3 s of system CPU while a
10,000-step session built, taken from a build that keeps both cores busy: paired with the
same build unsampled, 1.28x the wall on a loaded machine). claude-code-log and claude-code-transcripts
are timed on the Claude part when they are on PATH. The secret scanner's rules are compiled
into its disk cache before anything is timed (once per machine, ~4 s), so no figure holds it.
"""
from __future__ import annotations

import argparse
import html
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing import Pool
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).parent))
import benchmark_corpus  # noqa: E402
from clustertools import local_cluster  # noqa: E402
from gen_long_session import write_huge_line_session, write_long_claude_session  # noqa: E402

GENERATOR = Path(__file__).resolve().parents[1] / "generator"
LONG_STEPS = (10_000, 50_000)
# The console entry; checkouts from before entry.py existed (--generator) run the typer app.
ENTRY = ("import sys\ntry:\n    from replay_site.cli.entry import main\nexcept ImportError:\n    from replay_site.cli.app import app as main\n"
         "sys.argv[0] = 'replay-site'\nmain()")


_TICKS = os.sysconf("SC_CLK_TCK")


def _sample_tree(root: int, cpu: dict[int, float], memory: bool) -> int:
    """PSS of `root` and all its descendants, in KiB (0 unless `memory`); records each one's
    own CPU seconds so far in `cpu` (by pid, including processes that the root never waits
    for, such as a fork server's workers)."""
    pending, total = [root], 0
    while pending:
        pid = pending.pop()
        try:
            if memory:
                with open(f"/proc/{pid}/smaps_rollup") as stream:
                    total += next(int(line.split()[1]) for line in stream if line.startswith("Pss:"))
            with open(f"/proc/{pid}/stat") as stream:
                fields = stream.read().rsplit(")", 1)[1].split()
            cpu[pid] = (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as stream:
                    pending.extend(int(child) for child in stream.read().split())
        except (OSError, StopIteration, ValueError):
            continue
    return total


def measure(command: list[str], env: dict[str, str], memory: bool = True) -> dict[str, float]:
    """Wall and CPU seconds of one command run to completion, and with `memory` its peak tree
    PSS (MiB; its wall and CPU then hold the sampler's cost). CPU is the larger of the
    waited-for children's (exact, but blind to processes the build does not reap) and the sum
    of every sampled process's own (short by at most a sample each; reading /proc/PID/stat
    costs the sampler ~0.1 ms a sample for three processes)."""
    before = os.times()
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    sampled: dict[int, float] = {}

    def sample() -> None:
        nonlocal peak
        while process.poll() is None:
            peak = max(peak, _sample_tree(process.pid, sampled, memory))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    _, errors = process.communicate()
    wall = time.perf_counter() - start
    sampler.join()
    after = os.times()
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{errors.decode()[-2000:]}")
    waited = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {"wall": wall, "cpu": max(waited, sum(sampled.values())), "pss": peak / 1024} if memory else \
        {"wall": wall, "cpu": max(waited, sum(sampled.values()))}


def _floor_file(task: tuple[str, str]) -> int:
    source, target = task
    escaped: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            escaped.append(html.escape(value))
        elif isinstance(value, dict):
            for key, item in value.items():
                escaped.append(html.escape(key))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    with open(source, "rb") as stream:
        for line in stream:
            if line.strip():
                try:
                    walk(orjson.loads(line))
                except orjson.JSONDecodeError:
                    pass
    data = "\n".join(escaped).encode()
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_bytes(data)
    return len(data)


def floor(corpus: Path, out: Path, processes: int) -> None:
    """The least any generator must do: read, parse, escape and write every byte once."""
    tasks = [(str(path), str(out / f"{index}.txt")) for index, path in enumerate(sorted(corpus.rglob("*.jsonl")))]
    if processes == 1:
        for task in tasks:
            _floor_file(task)
    else:
        with Pool(processes) as pool:
            pool.map(_floor_file, tasks, chunksize=4)


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


class Bench:
    def __init__(self, work: Path, jobs: int, generator: Path):
        self.work, self.jobs = work, jobs
        # A cold build starts without replay-site's cache; the secret scanner's compiled rules
        # (kingfisher's own disk cache, ~4 s to make once per machine) are kept apart and kept.
        # Bytecode is written and used, as an installed replay-site's is (with
        # PYTHONDONTWRITEBYTECODE set, every run compiled the package again: ~1 s of a rebuild).
        self.env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPATH": str(generator),
                    "XDG_CACHE_HOME": str(work / "cache"), "KF_RULE_CACHE_DIR": str(work / "scanner-cache"),
                    "XDG_DATA_HOME": str(work / "data")}  # the archive (archive/): never the user's

    def warm_scanner(self) -> None:
        """Compile the scanner's rules into its disk cache, as the first build on a machine
        does, so that no timed build (with --runs 1, the only cold one) includes it."""
        subprocess.run([sys.executable, "-c", "from replay_site.redact.detect import load_scanner; load_scanner()"],
                       env=self.env, check=True)

    def build(self, corpus: Path, out: Path, *options: str, memory: bool = False) -> dict[str, float]:
        command = [sys.executable, "-c", ENTRY, "build", str(corpus), "-o", str(out), "-q", "-j", str(self.jobs), *options]
        result = measure(command, self.env, memory)
        result["bytes"] = folder_bytes(out)
        return result

    def cold(self, corpus: Path, out: Path, *options: str, memory: bool = False) -> dict[str, float]:
        cleared(out, self.work / "cache", self.work / "data")  # data: a first build archives every log
        return self.build(corpus, out, *options, memory=memory)

    def floor(self, corpus: Path, processes: int, memory: bool = False) -> dict[str, float]:
        out = cleared(self.work / "floor")
        code = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import benchmark; " \
               f"benchmark.floor(__import__('pathlib').Path({str(corpus)!r}), __import__('pathlib').Path({str(out)!r}), {processes})"
        result = measure([sys.executable, "-c", code], self.env, memory)
        result["bytes"] = folder_bytes(out)
        return result


def cleared(*folders: Path) -> Path:
    """`folders` removed, and the removal synced to disk before anything is timed: otherwise the
    file system charges the freed blocks to whichever process writes next (on this ext4,
    mounted with discard, a cold build just after the last one's site was removed took 1-2 s
    longer), so every timed command starts from a removed output folder alike. Returns the
    first folder (the output the command then writes)."""
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    os.sync()
    return folders[0]


def _fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def timing_then_memory(runs: int) -> list[bool]:
    """Whether each run of a scenario samples memory: `runs` timed runs, then one for the peak."""
    return [False] * runs + [True]


def median(runs: list[dict[str, float]]) -> dict[str, float]:
    """The medians of the timed runs, with their fastest and slowest wall time (the spread a
    row prints) and the peak PSS of the sampled one."""
    timed = [run for run in runs if "pss" not in run]
    return {key: statistics.median(run[key] for run in timed) for key in timed[0]} | \
        {"wall_min": min(run["wall"] for run in timed), "wall_max": max(run["wall"] for run in timed),
         "pss": max(run["pss"] for run in runs if "pss" in run)}


# The other generators, on a folder of Claude Code projects (never project dependencies).
PEER_COMMANDS = {
    "claude-code-log": lambda claude, out: ["claude-code-log", str(claude), "--all-projects", "-o", str(out)],
    "claude-code-transcripts": lambda claude, out: ["claude-code-transcripts", "all", "-s", str(claude), "-o", str(out)],
}


def peers(corpus: Path, work: Path) -> dict[str, dict[str, float]]:
    """The other generators on the Claude part, when installed, one run each."""
    found = {}
    claude = corpus / "claude"
    for name, peer_command in PEER_COMMANDS.items():
        command = lambda out: peer_command(claude, out)  # noqa: E731
        if claude.is_dir() and shutil.which(name):
            out = cleared(work / name)
            try:
                # One run, sampled: claude-code-log keeps a cache in the corpus, so a second run
                # would be warm; on a peer's one process the sampler mostly takes the idle core.
                found[name] = measure(command(out), dict(os.environ)) | {"bytes": folder_bytes(out) if out.exists() else 0}
            except SystemExit as failure:
                print(f"{name}: {failure}", file=sys.stderr)
    return found


def row(name: str, figures: dict[str, float], floor_wall: float | None = None) -> str:
    ratio = f"{figures['wall'] / floor_wall:.1f}×" if floor_wall else ""
    spread = f" ({figures['wall_min']:.2f}-{figures['wall_max']:.2f})" if "wall_min" in figures else ""
    return (f"| {name} | {figures['wall']:.2f}{spread} | {figures['cpu']:.2f} | {figures['pss']:.0f} | "
            f"{figures.get('bytes', 0) / 2**20:.1f} | {ratio} |")


def one_session_row(bench: Bench, name: str, log: Path, out: Path, runs: int) -> str:
    """A long session's cold build, with its time per step: a build linear in the steps keeps
    the same ms per step at 10,000 and at 50,000 steps."""
    figures = median([bench.cold(log, out, memory=memory) for memory in timing_then_memory(runs)])
    steps = sum(entry["steps"] for entry in orjson.loads((out / "sessions.json").read_bytes())["sessions"])
    per_step = f"{steps:,} steps, {1000 * figures['wall'] / steps:.2f} ms wall / {1000 * figures['cpu'] / steps:.2f} ms CPU per step"
    return row(f"{name}: {per_step}", figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(benchmark_corpus.SIZES), default="small")
    parser.add_argument("--formats", nargs="+", default=["claude", "gptme", "codex"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=0, help="-j for replay-site (0 = auto)")
    parser.add_argument("--long", type=int, nargs="*", metavar="STEPS",
                        help="also time one generated session of each of these lengths (none given: 10,000 and 50,000 steps)")
    parser.add_argument("--huge", type=Path, metavar="LOG", help="also time a build of this one log (e.g. the 200 MB single-session one)")
    parser.add_argument("--huge-message", type=int, metavar="MB", help="also time a session with one assistant message of MB megabytes")
    parser.add_argument("--huge-output", type=int, metavar="MB", help="also time a session with one tool-result line of MB megabytes")
    parser.add_argument("--peers", action="store_true", help="also time claude-code-log / claude-code-transcripts when installed")
    parser.add_argument("--pairs", type=int, default=0, metavar="N",
                        help="also run N alternating pairs of a cold build against each installed peer (and, with --cluster, "
                             "a one-worker cluster against -j 1): the ratio pair by pair, its median and spread")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (the corpus is reused)")
    parser.add_argument("--generator", type=Path, default=GENERATOR, help="the replay_site package's parent folder to time")
    parser.add_argument("--cluster", type=int, nargs="+", metavar="N", default=[],
                        help="also time cold builds on a local dask cluster of N workers (needs the [dask] extra)")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="replay-bench-"))
    try:
        run(work, args)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def run(work: Path, args: argparse.Namespace) -> None:
    corpus = work / f"corpus-{args.size}"
    if not corpus.is_dir():
        benchmark_corpus.make_corpus(corpus, args.size, args.formats)
    logs = sorted(corpus.rglob("*.jsonl"))
    print(f"corpus: {args.size}, {', '.join(args.formats)}: {len(logs)} log files, {folder_bytes(corpus) / 2**20:.1f} MiB")
    bench, out = Bench(work, args.jobs, args.generator), work / "site"
    bench.warm_scanner()
    cold, floor1, floor2 = [], [], []
    for memory in timing_then_memory(args.runs):  # alternating, so that machine load hits both alike
        cold.append(bench.cold(corpus, out, memory=memory))
        floor1.append(bench.floor(corpus, 1, memory))
        floor2.append(bench.floor(corpus, 2, memory))
    noop, touch, append = [], [], []
    rng = random.Random(5)
    victim = next(path for path in logs if "subagents" not in path.parts)
    for memory in timing_then_memory(args.runs):
        noop.append(bench.build(corpus, out, memory=memory))
        os.utime(victim)
        touch.append(bench.build(corpus, out, memory=memory))
        if "claude" in victim.parts:
            with victim.open("a") as stream:
                stream.write(benchmark_corpus.claude_turn(rng, victim))
        else:
            victim.write_bytes(victim.read_bytes() + victim.read_bytes().splitlines(keepends=True)[-1])
        append.append(bench.build(corpus, out, memory=memory))
    floor_wall = min(median(floor1)["wall"], median(floor2)["wall"])
    print("\n| scenario | wall s, median (min-max) | CPU s | peak PSS MiB | output MiB | × floor |\n|---|---|---|---|---|---|")
    print(row("floor, 1 process", median(floor1)))
    print(row("floor, 2 processes", median(floor2)))
    print(row(f"cold build (-j {args.jobs or 'auto'})", median(cold), floor_wall))
    print(row("rebuild, nothing changed", median(noop)))
    print(row("one log touched", median(touch)))
    print(row("one turn appended", median(append)))
    if args.long is not None:
        for steps in args.long or LONG_STEPS:
            long_corpus = work / f"long-{steps}"
            if not long_corpus.is_dir():
                write_long_claude_session(long_corpus / "-home-dev-long" / "long.jsonl", steps)
            print(one_session_row(bench, f"one {steps:,}-step session, cold", long_corpus, work / "long-site", args.runs))
    if args.huge:
        size = args.huge.stat().st_size if args.huge.is_file() else folder_bytes(args.huge)
        print(one_session_row(bench, f"{args.huge.name} ({size / 2**20:.0f} MiB), cold", args.huge, work / "huge-site", args.runs))
    for kind, megabytes in (("message", args.huge_message), ("output", args.huge_output)):
        if megabytes:
            log = work / f"huge-{kind}-{megabytes}" / "-home-dev-long" / "huge.jsonl"
            if not log.is_file():
                write_huge_line_session(log, **{f"{kind}_mb": megabytes})
            print(one_session_row(bench, f"one {megabytes} MB {kind} line, cold", log.parents[1], work / "huge-site", args.runs))
    for workers in args.cluster:
        with local_cluster(workers, _fresh(work / f"cluster-{workers}"), args.generator) as running:
            runs = [bench.cold(corpus, out, "--scheduler", running.address, memory=memory) for memory in timing_then_memory(args.runs)]
        print(row(f"cold build, dask cluster of {workers} worker{'s' if workers > 1 else ''}", median(runs), floor_wall))
    if args.peers:
        for name, figures in peers(corpus, work).items():
            print(row(f"{name}, cold (Claude part)", figures, floor_wall))
    if args.pairs:
        print("\n| pair (A / B), alternating | pairs | wall A/B median (min-max) | CPU A/B median (min-max) |\n|---|---|---|---|")
        cold_build = lambda: bench.cold(corpus, out)  # noqa: E731
        print(ratio_row(f"cold build -j {args.jobs or 'auto'} / floor, 1 process", paired(cold_build, lambda: bench.floor(corpus, 1), args.pairs)))
        for name, command in PEER_COMMANDS.items():
            if shutil.which(name):
                peer_out = work / name
                peer = lambda: measure(command(corpus / "claude", cleared(peer_out)), dict(os.environ), memory=False)  # noqa: E731
                print(ratio_row(f"cold build -j {args.jobs or 'auto'} / {name}", paired(cold_build, peer, args.pairs)))
        if 1 in args.cluster:
            with local_cluster(1, _fresh(work / "cluster-pairs"), args.generator) as running:
                on_cluster = lambda: bench.cold(corpus, out, "--scheduler", running.address)  # noqa: E731
                print(ratio_row(f"one dask worker / -j {args.jobs or 'auto'}", paired(on_cluster, cold_build, args.pairs)))


def paired(first, second, pairs: int) -> list[tuple[dict[str, float], dict[str, float]]]:
    """`pairs` runs of each, in turn (A B A B ...), after one of each not counted: a ratio per
    pair holds when the machine's speed drifts between pairs."""
    first(), second()
    return [(first(), second()) for _ in range(pairs)]


def ratio_row(name: str, runs: list[tuple[dict[str, float], dict[str, float]]]) -> str:
    def spread(key: str) -> str:
        ratios = sorted(a[key] / b[key] for a, b in runs)
        return f"{statistics.median(ratios):.2f} ({ratios[0]:.2f}-{ratios[-1]:.2f})"
    return f"| {name} | {len(runs)} | {spread('wall')} | {spread('cpu')} |"


if __name__ == "__main__":
    main()
