"""Installed as users install a CLI (pip into a virtual environment, or pipx, which installs the
same wheel into one of its own): a wheel built from the checkout carries the code, the themes
and the bundled examples, and not the test fixtures; installed in a fresh virtual
environment, its `replay-site build` builds the examples."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # a wheel build (pip fetches hatchling) and a virtual environment


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder), str(ROOT)],
                           capture_output=True, text=True, timeout=600)
    if built.returncode and "Could not find a version that satisfies the requirement hatchling" in built.stderr:
        pytest.skip("no package index to fetch hatchling from")
    assert built.returncode == 0, built.stderr
    return next(folder.glob("replay_site-*.whl"))


def test_the_wheel_carries_code_themes_and_examples_and_no_fixtures(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "replay_site/cli/entry.py" in names
    assert "replay_site/themes/default/templates/index.html" in names
    assert any(name.startswith("replay_site/examples/claude/") for name in names)
    assert not [name for name in names if name.startswith(("tests/", "example_output/")) or "/tests/data/" in name]
    entry_points = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "replay-site = replay_site.cli.entry:main" in entry_points


def test_the_installed_wheel_builds_the_bundled_examples(wheel, tmp_path):
    # The venv sees this interpreter's packages for the dependencies (no download), and its
    # own site-packages, where the wheel goes, come first: the command runs the wheel's code.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, timeout=300)
    home = tmp_path / "home"
    home.mkdir()
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("PYTHONPATH", "XDG_DATA_HOME", "GPTME_LOGS_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR")}
    environment |= {"HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    where = subprocess.run([str(python), "-c", "import replay_site; print(replay_site.__file__)"], env=environment,
                           capture_output=True, text=True, check=True)
    assert where.stdout.startswith(str(venv)), where.stdout
    built = subprocess.run([str(venv / "bin" / "replay-site"), "build", "-o", str(tmp_path / "site")], cwd=tmp_path,
                           env=environment, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    assert "bundled example sessions" in built.stderr and "Next:" in built.stderr
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "Example sessions — bundled with replay-site" in index
    assert (tmp_path / "site" / "assets" / "style.css").exists()
