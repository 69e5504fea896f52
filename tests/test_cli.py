"""The command line, through typer's runner, and the README's promise to document it."""
from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from replay_site.cli import app

runner = CliRunner()
README = Path(__file__).resolve().parents[1] / "README.md"


def test_build_writes_a_site_and_prints_a_one_line_summary(tmp_path, data):
    result = runner.invoke(app, ["build", str(data), "-o", str(tmp_path / "site"), "--quiet"])
    assert result.exit_code == 0, result.output
    summary = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"Built \d+ sessions, \d+ steps, \d+ warnings -> .*index\.html", summary)
    entries = json.loads((tmp_path / "site" / "sessions.json").read_text())["sessions"]
    assert summary.startswith(f"Built {len(entries)} sessions, {sum(e['steps'] for e in entries)} steps")


def test_missing_source_is_a_clear_error(tmp_path):
    result = runner.invoke(app, ["build", str(tmp_path / "nope"), "-o", str(tmp_path / "site")])
    assert result.exit_code == 1
    assert "no such file or folder" in result.stderr


def test_source_without_sessions_is_a_clear_error(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("hello")
    result = runner.invoke(app, ["build", str(tmp_path / "empty"), "-o", str(tmp_path / "site")])
    assert result.exit_code == 1
    assert "no readable session" in result.stderr


def test_no_sources_and_no_agent_folders_builds_the_bundled_examples(tmp_path, monkeypatch, data):
    for variable in ("HOME", "XDG_DATA_HOME", "GPTME_LOGS_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR"):
        monkeypatch.setenv(variable, str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["build", "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert "bundled example sessions" in result.stderr
    assert (tmp_path / "site" / "index.html").exists()


def test_unknown_format_is_refused(tmp_path, data):
    result = runner.invoke(app, ["build", str(data), "--format", "nosuch", "-o", str(tmp_path / "s")])
    assert result.exit_code == 1
    assert "unknown format" in result.stderr


def test_formats_lists_every_reader_with_its_default_folder():
    from replay_site.readers import registry

    result = runner.invoke(app, ["formats"])
    assert result.exit_code == 0
    for name in registry():
        assert re.search(rf"^{name}\s", result.stdout, re.M), name


def test_every_command_has_help_and_a_readme_entry():
    readme = README.read_text()
    commands = [c.name or c.callback.__name__ for c in app.registered_commands]
    assert commands
    for name in commands:
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0 and "Usage" in result.stdout, name
        assert f"replay-site {name}" in readme, f"README lacks `replay-site {name}`"
