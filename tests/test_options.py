"""The build options come from one table (build/options.py): typer's command, the fast
entry's parser and BuildOptions agree on every default, whichever way a build is started."""
from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from replay_site.pipeline import options
from replay_site.pipeline.stages import BuildOptions
from replay_site.cli import entry
from replay_site.cli.app import app


def _typer_build():
    return next(command.callback for command in app.registered_commands if command.callback.__name__ == "build")


def test_typer_build_takes_every_row_of_the_table_with_its_default():
    parameters = inspect.signature(_typer_build()).parameters
    assert list(parameters) == ["sources", *options.DEFAULTS]
    assert {name: parameters[name].default for name in options.DEFAULTS} == options.DEFAULTS


def test_build_options_defaults_are_the_command_lines():
    built = BuildOptions()
    assert (built.format, built.theme, built.title, built.jobs, built.redact, built.force) == tuple(
        options.DEFAULTS[name] for name in ("format", "theme", "title", "jobs", "redact", "force"))
    assert built.incremental is not options.DEFAULTS["full"]


@pytest.mark.parametrize("argv, expected", [
    (["build"], {}),
    (["build", "logs", "-o", "out", "-q", "-j", "2"], {"out": Path("out"), "quiet": True, "jobs": 2}),
    (["build", "--no-redact", "--title=T", "-f", "codex"], {"redact": False, "title": "T", "format": "codex"}),
])
def test_the_fast_entry_reads_what_typer_would(argv, expected):
    request = entry._build_request(argv)
    assert request is not None
    assert {name: request.arguments[name] for name in options.DEFAULTS} == {**options.DEFAULTS, **expected}


@pytest.mark.parametrize("argv", [["build", "--full"], ["build", "--compare", "a:b"], ["build", "-j", "x"],
                                  ["build", "-o=x"], ["build", "--quiet=1"], ["show"]])
def test_what_the_fast_entry_leaves_to_typer(argv):
    assert entry._build_request(argv) is None


def test_the_meaning_of_a_command_line_ignores_its_spelling_and_quiet_and_jobs():
    same = [entry._build_request(argv).key for argv in (["build", "-o", "site", "-q"], ["build", "-q", "--out", "site", "-j", "2"])]
    assert same[0] == same[1]
    assert entry._build_request(["build", "-o", "other"]).key != same[0]
