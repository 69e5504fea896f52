"""The command line, through typer's runner (its help and reference entries: tests/test_docs.py)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from replay_site.cli.app import app

runner = CliRunner()


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
    assert "warning:" not in result.output  # the examples are clean, not the broken test fixtures
    assert "Example sessions — bundled with replay-site" in (tmp_path / "site" / "index.html").read_text()
    assert "0 warnings" in result.stdout


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


def test_each_readers_variables_move_its_default_folders(monkeypatch, tmp_path):
    from replay_site.readers import registry

    readers = registry()
    assert {name for name, reader in readers.items() if getattr(reader, "env_vars", ())} >= {"claude", "codex", "gptme", "gemini", "qwen"}
    for name, reader in readers.items():
        variables = getattr(reader, "env_vars", ())
        for variable in variables:
            for other in variables:
                monkeypatch.delenv(other, raising=False)
            if variable.endswith("_SUFFIX"):  # a suffix of the folder's name (HERMES_DATA_DIR_SUFFIX), not a path
                monkeypatch.setenv(variable, "-moved")
                assert any(folder.name.endswith("-moved") for folder in reader.default_dirs()), (name, variable)
                continue
            monkeypatch.setenv(variable, str(tmp_path / variable))
            # a folder under the variable's path, or the folder of the file it names (OPENCODE_DB)
            assert any(tmp_path / variable in folder.parents or folder in (tmp_path / variable, tmp_path) for folder in reader.default_dirs()), (name, variable)
    (tmp_path / "GEMINI_CLI_HOME" / ".gemini" / "tmp").mkdir(parents=True)
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "GEMINI_CLI_HOME"))
    line = next(line for line in runner.invoke(app, ["formats"]).stdout.splitlines() if line.startswith("gemini "))
    assert line.endswith(f"{tmp_path}/GEMINI_CLI_HOME/.gemini/tmp (found)  [moved by $GEMINI_CLI_HOME, $HOME]")


def test_formats_says_which_folders_exist_and_what_moves_them(tmp_path, monkeypatch):
    (tmp_path / "sessions").mkdir()
    monkeypatch.setenv("KIMI_SHARE_DIR", str(tmp_path))
    lines = {line.split()[0]: line for line in runner.invoke(app, ["formats"]).stdout.splitlines() if line.strip()}
    assert f"{tmp_path / 'sessions'} (found)" in lines["kimi"] and "$KIMI_SHARE_DIR" in lines["kimi"]




def _glue_log(folder: Path, lines: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "conversation.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


def _unpriced_session(folder: Path) -> Path:
    """One response from a model no price table knows: its cost is unknown, not $0."""
    return _glue_log(folder, [
        {"timestamp": "2026-01-01T00:00:00Z", "type": "user_message", "text": "hi"},
        {"timestamp": "2026-01-01T00:00:01Z", "type": "assistant_message", "text": "hello", "model_ref": "acme/mystery-1"},
        {"timestamp": "2026-01-01T00:00:01Z", "type": "usage", "role": "main", "model_ref": "acme/mystery-1",
         "input_tokens": 10, "output_tokens": 5},
    ])


def test_boolean_options_are_flags_in_help_and_on_the_command_line(tmp_path, data):
    for name in [c.name or c.callback.__name__ for c in app.registered_commands]:
        help_text = runner.invoke(app, [name, "--help"]).stdout
        assert "<bool>" not in help_text, name
    assert re.search(r"--redact / --no-redact", runner.invoke(app, ["build", "--help"]).stdout)
    # A flag takes no value: `true` after it is a source, which does not exist.
    result = runner.invoke(app, ["build", "--quiet", "true", "-o", str(tmp_path / "s")])
    assert result.exit_code == 1 and "true" in result.stderr


def test_version():
    from replay_site import __version__

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"replay-site {__version__}"


def test_export_and_compare_refuse_an_output_that_cannot_be_a_file(tmp_path, data):
    log = str(data / "glue" / "1791000000000-4242-ex1")
    (tmp_path / "afile").write_text("x")
    for command in (["export", log], ["compare", log, log]):
        for out in (tmp_path, tmp_path / "afile" / "page.html"):
            result = runner.invoke(app, [*command, "-o", str(out)])
            assert result.exit_code == 2, (command, out, result.output)
            assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
            assert "Traceback" not in result.output


def test_export_and_compare_never_overwrite_the_log_they_read(tmp_path, data):
    log = tmp_path / "conversation.jsonl"
    log.write_bytes((data / "glue" / "1791000000000-4242-ex1" / "conversation.jsonl").read_bytes())
    before = log.read_bytes()
    for command in (["export", str(log)], ["compare", str(log), str(log)]):
        result = runner.invoke(app, [*command, "-o", str(log)])
        assert result.exit_code == 2 and "is the log being read" in result.stderr, result.output
    assert log.read_bytes() == before


def test_single_files_are_written_atomically_and_replace_a_symlink_not_its_target(tmp_path, data):
    log = str(data / "glue" / "1791000000000-4242-ex1")
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me")
    (tmp_path / "out.html").symlink_to(target)
    result = runner.invoke(app, ["export", log, "-o", str(tmp_path / "out.html")])
    assert result.exit_code == 0, result.output
    assert target.read_text() == "keep me" and not (tmp_path / "out.html").is_symlink()
    assert (tmp_path / "out.html").read_text().startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.txt", "out.html"]  # no temp file left


def test_an_unreadable_log_says_permission_denied(tmp_path, monkeypatch):
    from replay_site import load as catalog

    def refuse(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / "secret.jsonl"))

    monkeypatch.setattr(catalog, "iter_sessions", refuse)
    result = runner.invoke(app, ["list", str(tmp_path)])
    assert result.exit_code == 1 and result.stderr == f"error: permission denied: {tmp_path / 'secret.jsonl'}\n"


def test_check_needs_a_limit_and_treats_an_unknown_cost_as_unknown(tmp_path):
    source = _unpriced_session(tmp_path / "logs" / "s")
    result = runner.invoke(app, ["check", str(source)])
    assert result.exit_code == 2 and result.stderr.startswith("error: check needs a limit")
    result = runner.invoke(app, ["check", str(source), "--max-cost", "100"])
    # not "over budget": a count of its own, with the flags that price or pass it, and "1 step"
    assert result.exit_code == 1 and "COST UNKNOWN" in result.stdout and ": 1 unpriced step (acme/mystery-1)" in result.stdout, result.output
    assert "1 session checked, 0 over budget, 1 cost unknown\n" in result.stdout
    assert "--prices FILE" in result.stdout and "--allow-unknown-cost" in result.stdout
    result = runner.invoke(app, ["check", str(source), "--max-cost", "100", "--allow-unknown-cost"])
    assert result.exit_code == 0, result.output
    assert "COST UNKNOWN" in result.stdout and "allowed by --allow-unknown-cost" in result.stdout and "hint:" not in result.stdout
    verdict = json.loads(runner.invoke(app, ["check", str(source), "--max-cost", "100", "--json"]).stdout)
    assert verdict["over_budget"] == [] and [(u["unpriced_steps"], u["unpriced_models"]) for u in verdict["cost_unknown"]] == [(1, ["acme/mystery-1"])]
    assert runner.invoke(app, ["check", str(source), "--max-errors", "0"]).exit_code == 0  # cost not asked about


def test_the_examples_fallback_is_only_for_build(tmp_path, monkeypatch):
    for variable in ("HOME", "XDG_DATA_HOME", "GPTME_LOGS_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR"):
        monkeypatch.setenv(variable, str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    for command in (["list"], ["check", "--max-errors", "1"], ["show", "some-id"], ["export", "--last"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 1, (command, result.output)
        assert "bundled" not in result.output and result.stderr.startswith("error: no agent log folder"), result.stderr


def test_show_and_warnings_print_control_characters_escaped(tmp_path):
    source = _glue_log(tmp_path / "logs" / "s", [
        {"timestamp": "2026-01-01T00:00:00Z", "type": "user_message", "text": "look \x1b]0;pwned\x07\x1b[2J here\u202e"},
        {"timestamp": "2026-01-01T00:00:01Z", "type": "mystery\x1b[31m", "text": "x"},
    ])
    result = runner.invoke(app, ["show", str(source)])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
    # the title sequence is dropped when the log is read; the bidi override is shown as its code point
    assert "look  here⟦U+202E⟧" in result.stdout and "pwned" not in result.stdout
    result = runner.invoke(app, ["build", str(source), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stderr and "warning: " in result.stderr


def test_list_prints_ids_from_logs_literally(tmp_path):
    source = _glue_log(tmp_path / "logs" / "[bold]s\x1b]0;t\x07", [
        {"timestamp": "2026-01-01T00:00:00Z", "type": "user_message", "text": "hi"}])
    result = runner.invoke(app, ["list", str(source)])
    assert result.exit_code == 0, result.output
    # rich markup in an id printed literally; the title sequence in it dropped when the log is read
    assert "[bold]s " in result.stdout and "\x1b" not in result.stdout
