"""Shared fixtures: the real corpus (skipped with a reason when absent) and the example data."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
CORPUS = Path(os.environ.get("REPLAY_SITE_CORPUS", REPO.parent / "shared" / "corpus")).resolve()


@pytest.fixture(autouse=True, scope="session")
def private_build_cache(tmp_path_factory):
    """Incremental builds keep a cache in the user's cache folder, and every build keeps the
    logs it reads in the archive in the user's data folder; tests use their own."""
    saved = {name: os.environ.get(name) for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME")}
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("xdg-data"))
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def copy_as_another(source: Path, target: Path) -> None:
    """A copy of the logs at `source` that is another session, not a byte copy (read once,
    as discovery reads a byte copy): a blank line, which readers pass over, ends each whole
    log and JSON file."""
    shutil.copytree(source, target)
    for log in sorted(target.rglob("*.json*")):
        if log.suffix in (".json", ".jsonl") and log.read_bytes().endswith(b"\n"):
            with open(log, "ab") as stream:
                stream.write(b"\n")


@pytest.fixture
def corpus() -> Path:
    """The real session logs in ../shared/corpus; a user's clone has none, so tests skip there."""
    if not CORPUS.is_dir():
        pytest.skip(f"real corpus not found at {CORPUS} (set REPLAY_SITE_CORPUS to run these tests)")
    return CORPUS


@pytest.fixture
def data() -> Path:
    return DATA


@pytest.fixture(scope="session")
def data_site(tmp_path_factory) -> Path:
    """The site of tests/data, built once for every test that only reads it."""
    from replay_site.pipeline import stages as pipeline

    out = tmp_path_factory.mktemp("data-site")
    pipeline.build([DATA], out, pipeline.BuildOptions())
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict]:
    """The whole corpus built once; (site folder, sessions.json)."""
    if not CORPUS.is_dir():
        pytest.skip(f"real corpus not found at {CORPUS}")
    from replay_site.pipeline import stages as site

    out = tmp_path_factory.mktemp("corpus-site")
    site.build([CORPUS], out, site.BuildOptions())
    return out, json.loads((out / "sessions.json").read_text(encoding="utf-8"))
