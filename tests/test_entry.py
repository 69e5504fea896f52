"""The console entry answers a build that would change nothing from the last build's record,
without importing typer, the readers, jinja2, pygments, markdown-it or the price table;
any change to the logs, the output, or the command line runs the real build."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
GENERATOR = Path(__file__).resolve().parents[1] / "generator"
HEAVY = ("typer", "jinja2", "pygments", "markdown_it", "genai_prices", "replay_site.readers", "replay_site.render")
RUN = """
import sys
from replay_site.entry import main
sys.argv = ["replay-site", *sys.argv[1:]]
try:
    main()
finally:
    heavy = sorted(name for name in sys.modules if name.startswith({heavy!r}))
    print("imported:", " ".join(heavy), file=sys.stderr)
""".format(heavy=HEAVY)


@pytest.fixture
def workdir(tmp_path) -> Path:
    shutil.copytree(DATA / "gptme", tmp_path / "logs" / "gptme")
    shutil.copytree(DATA / "glue", tmp_path / "logs" / "glue")
    return tmp_path


def replay_site(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(GENERATOR), "XDG_CACHE_HOME": str(workdir / "cache")}
    result = subprocess.run([sys.executable, "-c", RUN, *args], cwd=workdir, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result


def heavy_imports(result: subprocess.CompletedProcess) -> str:
    return result.stderr.rsplit("imported:", 1)[1].strip()


def test_an_unchanged_build_is_answered_without_the_heavy_imports(workdir):
    first = replay_site(workdir, "build", "logs", "-o", "site", "-q")
    assert first.stdout.startswith("Built ") and "typer" in heavy_imports(first)
    again = replay_site(workdir, "build", "logs", "-q", "--out", "site", "-j", "2")  # -q, -j and order aside
    assert again.stdout.startswith("Nothing changed since the last build: ")
    assert heavy_imports(again) == ""
    assert again.stdout.split(":", 1)[1].strip() == first.stdout.removeprefix("Built").strip()


@pytest.mark.parametrize("change", ["touch a log", "append to a log", "remove a page", "new title", "new file"])
def test_any_change_runs_the_real_build(workdir, change):
    replay_site(workdir, "build", "logs", "-o", "site", "-q")
    args = ["build", "logs", "-o", "site", "-q"]
    log = workdir / "logs" / "gptme" / "markdown-hello" / "conversation.jsonl"
    if change == "touch a log":
        os.utime(log, ns=(log.stat().st_atime_ns, log.stat().st_mtime_ns + 10**9))
    elif change == "append to a log":
        log.write_text(log.read_text() + '\n{"role": "user", "content": "more", "timestamp": "2026-03-02T11:00:00"}\n')
    elif change == "remove a page":
        next((workdir / "site" / "sessions").glob("*.html")).unlink()
    elif change == "new title":
        args += ["--title", "Other"]
    else:
        shutil.copytree(DATA / "glue" / "1791000000000-4242-ex1", workdir / "logs" / "glue" / "copy")
    result = replay_site(workdir, *args)
    assert result.stdout.startswith("Built "), result.stdout
    assert replay_site(workdir, *args).stdout.startswith("Nothing changed")  # and the next one is a no-op again
