"""installed.py: importlib.metadata's answers remembered while the folders on sys.path are
unchanged, asked again once one of them changed (a package installed, upgraded, removed)."""
from __future__ import annotations

import importlib.metadata
import os
import sys

import pytest

from replay_site import installed


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty cache folder, a folder of our own on sys.path, and no answers read yet."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "site-packages"
    folder.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(folder)])
    monkeypatch.setattr(installed, "_memo", None)
    return folder


def _forget(monkeypatch):
    """A new process: the answers are read from the cache folder again."""
    monkeypatch.setattr(installed, "_memo", None)


def test_answers_are_importlib_metadata_s(fresh):
    assert installed.version("jinja2") == importlib.metadata.version("jinja2")
    assert installed.version("no-such-distribution-here") is None
    metadata = installed.metadata_file("jinja2")
    assert metadata.endswith("METADATA") and os.path.isfile(metadata)
    console = [(point.name, point.value) for point in importlib.metadata.entry_points(group="console_scripts")]
    assert installed.entry_points("console_scripts") == console


def test_answers_are_remembered_until_a_folder_on_the_path_changes(fresh, monkeypatch):
    first = installed.version("jinja2")
    asked = []

    def version(name):
        asked.append(name)
        return "9.9"

    monkeypatch.setattr(importlib.metadata, "version", version)
    _forget(monkeypatch)
    assert installed.version("jinja2") == first and asked == []  # from the cache folder
    (fresh / "newpackage-1.0.dist-info").mkdir()  # an install changes its folder
    os.utime(fresh, ns=(1, 1))
    _forget(monkeypatch)
    assert installed.version("jinja2") == "9.9" and asked == ["jinja2"]


def test_a_damaged_memo_is_asked_again(fresh, monkeypatch, tmp_path):
    installed.version("jinja2")
    (tmp_path / "cache" / "replay-site" / "installed.json").write_text("{not json")
    _forget(monkeypatch)
    assert installed.version("jinja2") == importlib.metadata.version("jinja2")
