"""The library's face (`import replay_site`, api.py): the package docstring's example runs as
written, every name of `__all__` resolves to the object a script means, the names are imported
only when asked for (the console entry's no-op answer imports the package), and build_site and
the loaders take what the command line takes. Also: each built-in reader declares exactly the
environment variables its default folders are read from (the no-op path watches those)."""
from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from collections.abc import Iterator, MutableMapping
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import replay_site
from replay_site import api, model
from replay_site.readers import registry

GENERATOR = Path(__file__).resolve().parents[1] / "generator"


def test_the_documented_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no redaction decisions file but the test's own (none)
    examples = doctest.DocTestFinder().find(replay_site, globs={})
    (example,) = [test for test in examples if test.name == "replay_site"]
    steps = example.docstring.count(">>> ")
    assert steps >= 10 and len(example.examples) == steps
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(example)
    assert result == (0, steps)


def test_every_exported_name_resolves_to_the_library_s_object():
    assert replay_site.__all__ == ["__version__", *api.__all__] and len(set(api.__all__)) == len(api.__all__)
    for name in replay_site.__all__[1:]:
        assert getattr(replay_site, name) is getattr(api, name), name
    assert replay_site.Session is model.Session and replay_site.Cost is model.Cost
    assert set(replay_site.__all__) <= set(dir(replay_site))
    star: dict = {}
    exec("from replay_site import *", star)
    assert sorted(name for name in star if name != "__builtins__") == sorted(replay_site.__all__)
    with pytest.raises(AttributeError, match="no attribute 'HelperProces'"):
        _ = replay_site.HelperProces  # a typo is an AttributeError, not an import of the library


def _imported_after(code: str) -> set[str]:
    watched = ("jinja2", "pygments", "markdown_it", "typer", "replay_site.readers", "replay_site.api",
               "replay_site.load", "replay_site.pipeline")
    probe = f"import sys\n{code}\nprint(' '.join(sorted(m for m in sys.modules if m.startswith({watched!r}))))"
    result = subprocess.run([sys.executable, "-c", probe], env={**os.environ, "PYTHONPATH": str(GENERATOR)},
                            capture_output=True, text=True, timeout=60, check=True)
    return set(result.stdout.split())


def test_importing_the_package_imports_none_of_the_library():
    assert _imported_after("import replay_site; replay_site.__version__") == set()
    # and asking for a name does import it (so the line above could fail)
    asked = _imported_after("import replay_site; replay_site.Session")
    assert {"replay_site.api", "replay_site.load", "replay_site.readers"} <= asked


def test_build_site_takes_the_command_s_options(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    calls = []
    result = api.build_site(str(replay_site.examples_dir() / "gptme"), "site", title="Mine",
                            jobs=1, progress=lambda done, total: calls.append((done, total)))
    assert result.out == Path("site") and len(result.summaries) == 1 and result.problems == []
    index = BeautifulSoup((tmp_path / "site" / "index.html").read_text(), "html.parser")
    assert index.title.get_text(strip=True).startswith("Mine")
    assert calls and calls[-1][0] == calls[-1][1]
    with pytest.raises(re.error):
        api.build_site(replay_site.examples_dir(), "other", redact_patterns=["(unclosed"])
    assert not (tmp_path / "other").exists()


def test_no_source_means_the_default_folders(tmp_path, monkeypatch):
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GPTME_LOGS_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(replay_site.DiscoveryError, match="no agent log folder found"):
        list(replay_site.iter_sessions())
    logs = tmp_path / ".glue" / "sessions"
    logs.parent.mkdir()
    os.symlink(replay_site.examples_dir() / "glue", logs)
    assert [s.id for s in replay_site.iter_sessions()] == ["1791000000000-4242-ex1", "1791000000000-4242-ex1:sub:sub-ex1-0a"]
    assert replay_site.load_session().id == "1791000000000-4242-ex1"  # the latest started, a top session
    os.unlink(logs)  # no default folder: a log named by its path is still found
    log = replay_site.examples_dir() / "gptme" / "markdown-hello" / "conversation.jsonl"
    assert replay_site.load_session(str(log)).title == "Loud hello script"


def test_what_cannot_be_read_is_a_problem_naming_file_and_line(tmp_path):
    """A bad line is the session's problem; a file no reader takes, under a folder, the list's."""
    log = tmp_path / "logs" / "conversation.jsonl"
    log.parent.mkdir()
    log.write_text((replay_site.examples_dir() / "gptme" / "markdown-hello" / "conversation.jsonl").read_text() + "{not json\n")
    (tmp_path / "logs" / "notes.jsonl").write_text('{"nobody": "writes this"}\n')
    problems: list[replay_site.Problem] = []
    (session,) = replay_site.iter_sessions(tmp_path / "logs", replay_site.ReadOptions(redact=False), problems)
    lines = len(log.read_text().splitlines())
    assert [(p.kind, p.path, p.line) for p in session.problems] == [("bad_line", "conversation.jsonl", lines)]
    assert [(p.kind, p.path) for p in problems] == [("skipped_file", "notes.jsonl")]


class _Recording(MutableMapping):
    """os.environ, remembering every name read from it."""

    def __init__(self, real: MutableMapping[str, str]) -> None:
        self.real, self.read = real, set()

    def __getitem__(self, name: str) -> str:
        self.read.add(name)
        return self.real[name]

    def __contains__(self, name: object) -> bool:
        self.read.add(name)
        return name in self.real

    def __setitem__(self, name: str, value: str) -> None:
        self.real[name] = value

    def __delitem__(self, name: str) -> None:
        del self.real[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.real)

    def __len__(self) -> int:
        return len(self.real)


@pytest.mark.parametrize("name", ["claude", "codex", "gptme", "glue", "rlm"])
def test_a_built_in_reader_declares_the_variables_its_folders_are_read_from(name, tmp_path, monkeypatch):
    """With none of its variables set but HOME, a reader reads each (finding it unset), and no
    other; set alone, each moves a folder."""
    reader = registry()[name]
    assert "HOME" in reader.env_vars  # Path.home()
    for variable in reader.env_vars:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    recording = _Recording(dict(os.environ))
    monkeypatch.setattr(os, "environ", recording)
    before = reader.default_dirs()
    assert recording.read == set(reader.env_vars)
    for variable in reader.env_vars:
        saved = recording.real.get(variable)
        recording.real[variable] = str(tmp_path / "moved" / variable)
        assert reader.default_dirs() != before, variable
        if saved is None:
            del recording.real[variable]
        else:
            recording.real[variable] = saved
