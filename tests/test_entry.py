"""The console entry answers a build that would change nothing from the last build's record,
without importing typer, the readers, jinja2, pygments, markdown-it or the price table;
any change to the logs, the output, the command line or the page libraries runs the real
build. A log only touched (mtime moved, bytes the same) is told apart by its content digest."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import copy_as_another

DATA = Path(__file__).parent / "data"
GENERATOR = Path(__file__).resolve().parents[1] / "generator"
HEAVY = ("typer", "jinja2", "pygments", "markdown_it", "genai_prices", "kingfisher_sdk", "replay_site.readers",
         "replay_site.pages.render", "replay_site.store.cache", "replay_site.store.site_store")
RUN = """
import sys
from replay_site.cli.entry import main
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


def replay_site(workdir: Path, *args: str, path: str = str(GENERATOR), status: int = 0) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": path, "XDG_CACHE_HOME": str(workdir / "cache")}
    result = subprocess.run([sys.executable, "-c", RUN, *args], cwd=workdir, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == status, result.stderr
    return result


def heavy_imports(result: subprocess.CompletedProcess) -> str:
    return result.stderr.rsplit("imported:", 1)[1].strip()


def test_an_unchanged_build_is_answered_without_the_heavy_imports(workdir):
    first = replay_site(workdir, "build", "logs", "-o", "site", "-q")
    assert first.stdout.startswith("Built ") and "jinja2" in heavy_imports(first)
    assert "typer" not in heavy_imports(first)  # a command line the entry understands skips typer
    again = replay_site(workdir, "build", "logs", "-q", "--out", "site", "-j", "2")  # -q, -j and order aside
    assert again.stdout.startswith("Nothing changed since the last build: ")
    assert heavy_imports(again) == ""
    assert again.stdout.split(":", 1)[1].strip() == first.stdout.removeprefix("Built").strip()


def touch(path: Path) -> None:
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))


def test_a_touched_log_is_answered_by_its_digest_without_the_heavy_imports(workdir):
    shutil.copytree(GENERATOR.parent / "themes" / "default", workdir / "theme")
    args = ["build", "logs", "-o", "site", "-q", "--theme", "theme"]
    first = replay_site(workdir, *args)
    log = workdir / "logs" / "gptme" / "markdown-hello" / "conversation.jsonl"
    touch(log)
    touch(workdir / "logs" / "glue")  # a folder's times are not its listing
    touch(next((workdir / "theme").rglob("*.css")))
    again = replay_site(workdir, *args)
    assert again.stdout.startswith("Nothing changed"), again.stdout
    assert heavy_imports(again) == ""
    # the new mtime is remembered: the next run takes the log by its stat, never opening it
    record = next((workdir / "cache" / "replay-site" / "sites").glob("*/state.json")).read_text()
    assert str(log.stat().st_mtime_ns) in record
    assert first.stdout.removeprefix("Built").strip() == again.stdout.split(":", 1)[1].strip()


@pytest.mark.parametrize("change", ["same size, other bytes", "append to a log", "touch and edit the theme",
                                    "remove a page", "new title", "new file"])
def test_any_change_runs_the_real_build(workdir, change):
    args = ["build", "logs", "-o", "site", "-q"]
    if change == "touch and edit the theme":
        shutil.copytree(GENERATOR.parent / "themes" / "default", workdir / "theme")
        args += ["--theme", str(workdir / "theme")]
    replay_site(workdir, *args)
    log = workdir / "logs" / "gptme" / "markdown-hello" / "conversation.jsonl"
    if change == "same size, other bytes":
        log.write_bytes(log.read_bytes().replace(b"Hello", b"Hallo"))
    elif change == "touch and edit the theme":
        css = next((workdir / "theme").rglob("*.css"))
        css.write_bytes(css.read_bytes().replace(b"{", b"[", 1))  # same size: the digest tells
    elif change == "append to a log":
        log.write_text(log.read_text() + '\n{"role": "user", "content": "more", "timestamp": "2026-03-02T11:00:00"}\n')
    elif change == "remove a page":
        next((workdir / "site" / "sessions").glob("*.html")).unlink()
    elif change == "new title":
        args += ["--title", "Other"]
    else:
        copy_as_another(DATA / "glue" / "1791000000000-4242-ex1", workdir / "logs" / "glue" / "copy")
    result = replay_site(workdir, *args)
    assert result.stdout.startswith("Built "), result.stdout
    assert replay_site(workdir, *args).stdout.startswith("Nothing changed")  # and the next one is a no-op again


def test_a_page_library_upgrade_runs_the_real_build(workdir):
    """A library that writes page markup is watched by its installed metadata: here a jinja2
    distribution found first on the path, whose version then moves (an upgrade replaces it)."""
    metadata = workdir / "libraries" / "jinja2-3.1.6.dist-info" / "METADATA"
    metadata.parent.mkdir(parents=True)
    metadata.write_text("Metadata-Version: 2.1\nName: Jinja2\nVersion: 3.1.6\n")
    (metadata.parent / "RECORD").write_text("jinja2-3.1.6.dist-info/METADATA,,\n")
    path = f"{GENERATOR}{os.pathsep}{workdir / 'libraries'}"
    replay_site(workdir, "build", "logs", "-o", "site", "-q", path=path)
    assert replay_site(workdir, "build", "logs", "-o", "site", "-q", path=path).stdout.startswith("Nothing changed")
    metadata.write_text("Metadata-Version: 2.1\nName: Jinja2\nVersion: 3.1.7\n")
    assert replay_site(workdir, "build", "logs", "-o", "site", "-q", path=path).stdout.startswith("Built ")


def test_mistakes_are_reported_as_the_typer_command_reports_them(workdir):
    missing = replay_site(workdir, "build", "nowhere", "-o", "site", status=1)  # run without typer
    assert missing.stderr.splitlines()[0] == "error: nowhere: no such file or folder"
    assert "typer" not in heavy_imports(missing)
    bad_jobs = replay_site(workdir, "build", "logs", "-j", "many", status=2)  # typer's own usage error
    assert "Invalid value for '--jobs'" in bad_jobs.stderr


def test_the_entry_listing_serves_the_one_build_it_runs(tmp_path):
    """The console entry hands the listing it took to the build it runs, so a rebuild lists the
    inputs once: the build takes that listing for exactly the same paths, and only once (a
    second build in the same process lists again and sees a file added since)."""
    from replay_site.store.states import hand_over, listing_for_build, tree_listing

    (tmp_path / "a.jsonl").write_text("{}\n")
    taken = tree_listing([tmp_path])
    hand_over([tmp_path], taken)
    (tmp_path / "b.jsonl").write_text("{}\n")
    assert listing_for_build([tmp_path / "a.jsonl"]) != taken  # other paths: listed
    assert listing_for_build([tmp_path]) is taken
    again = listing_for_build([tmp_path])
    assert again is not taken and [Path(entry.path).name for entry in again] == [tmp_path.name, "a.jsonl", "b.jsonl"]
