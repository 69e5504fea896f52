"""The documentation keeps up with the code: every command has help and its entry in the
generated command reference, which is current; the README's links lead to pages of the docs
site; the Python library page's examples run; the output reference names every field a site
writes; and the README's test command is the one .ci/run runs."""
from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from replay_site.cli.app import app
from replay_site.cli.build_command import next_steps

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text(encoding="utf-8")
runner = CliRunner()


def _reference_script():
    spec = importlib.util.spec_from_file_location("cli_reference", DOCS / "scripts" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _reference_script()


def _sections(page: str) -> dict[str, str]:
    """The command reference cut at its `## \\`replay-site NAME\\`` headings."""
    parts = re.split(r"^## `replay-site ([a-z -]+)`$", page, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_the_command_reference_is_current():
    assert (DOCS / "reference" / "commands.md").read_text(encoding="utf-8") == reference.render(), \
        "run python docs/scripts/cli_reference.py"


def test_every_command_has_help_and_every_option_its_entry_in_the_reference():
    sections = _sections((DOCS / "reference" / "commands.md").read_text(encoding="utf-8"))
    commands = reference.commands()
    assert {"build", "show", "export", "check", "compare", "redactions", "formats", "list"} <= set(commands)
    for name, (command, context) in commands.items():
        result = runner.invoke(app, [*name.split(), "--help"])
        assert result.exit_code == 0 and "Usage" in result.stdout, name
        assert command.help, f"{name} has no help text"
        assert name in sections, f"the reference lacks `replay-site {name}`"
        for parameter in command.get_params(context):
            for spelling in [*parameter.opts, *parameter.secondary_opts]:
                if parameter.name != "help" and spelling.startswith("-"):
                    assert re.search(rf"`[^`]*{re.escape(spelling)}\b", sections[name]), f"{name} {spelling}"


def test_every_build_option_of_the_options_table_is_in_the_reference():
    from replay_site.pipeline import options

    build = _sections((DOCS / "reference" / "commands.md").read_text(encoding="utf-8"))["build"]
    for option in options.BUILD:
        for spelling in option.spellings:
            assert spelling in build, spelling
        assert " ".join(option.help.split()).split("(")[0].replace("<", "&lt;")[:40] in build, option.name


def test_a_command_the_template_does_not_mark_is_an_error(monkeypatch):
    marked = reference.TEMPLATE.read_text(encoding="utf-8").replace("<!-- command: list -->", "")
    monkeypatch.setattr(reference, "TEMPLATE", type("T", (), {"read_text": lambda self, encoding: marked})())
    with pytest.raises(SystemExit, match="command: list"):
        reference.render()


def _nav_pages() -> set[str]:
    """The pages mkdocs.yml's nav names (paths under docs/)."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    return set(re.findall(r"^\s+- (?:[^:\n]+: )?([\w/.-]+\.md)$", text[text.index("\nnav:"):], re.M))


def test_readme_links_resolve_to_pages_of_the_docs_site():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    docs_pages = [link for link in local if link.startswith("docs/") and link.endswith(".md")]
    assert len(docs_pages) >= 10, docs_pages
    nav = _nav_pages()
    for link in local:
        assert (ROOT / link).exists(), link
    for link in docs_pages:
        assert link.removeprefix("docs/") in nav, f"{link} is not in mkdocs.yml's nav"
    assert "docs/screenshots/" in README.split("\n## ")[0], "the first screen shows a screenshot"


def test_every_nav_page_exists():
    for page in _nav_pages():
        assert (DOCS / page).is_file(), page


def test_readme_is_one_screen_with_the_two_commands_and_ci_runs_the_same_test_command():
    assert len(README.splitlines()) < 200
    build = re.search(r"^pip install \. && replay-site build$", README, re.M)
    test = re.search(r"^(pip install -e '\.\[test\]' && pytest)$", README, re.M)
    assert build and test
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test.group(1) in ci, ".ci/run must run the README's test command"
    assert "mkdocs build --strict" in ci
    assert "venv" in README and "pipx install" in README  # PEP 668: no pip install into Debian's Python


def _python_examples() -> list[str]:
    """The Python examples of the library page and the README."""
    return [example for page in (DOCS / "python.md", ROOT / "README.md")
            for example in re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M)]


@pytest.mark.parametrize("number", range(len(_python_examples())))
def test_the_python_library_examples_run(number, tmp_path):
    # each in a fresh interpreter, as a reader would paste it; they build and read only the bundled examples
    example = _python_examples()[number]
    result = subprocess.run([sys.executable, "-c", example], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() and "Traceback" not in result.stderr


def test_the_output_reference_names_every_field_of_sessions_json_and_csv():
    page = (DOCS / "reference" / "output.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z_*]+)`", page))
    site = json.loads((ROOT / "example_output" / "sessions.json").read_text(encoding="utf-8"))
    fields = set(site) | {key for session in site["sessions"] for key in session}
    wildcard = {key for key in fields if key.endswith("_tokens_with_children")}
    assert fields - wildcard - documented == set()
    assert "*_tokens_with_children" in documented
    columns = (ROOT / "example_output" / "sessions.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert set(columns) - documented == set()


def test_after_building_the_examples_the_cli_says_what_to_do_next(tmp_path, monkeypatch):
    for variable in ("HOME", "XDG_DATA_HOME", "GPTME_LOGS_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR"):
        monkeypatch.setenv(variable, str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["build", "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert next_steps(tmp_path / "site") in result.stderr
    assert f"replay-site build ~/.glue/sessions ~/.claude/projects -o {tmp_path / 'site'}" in result.stderr
    assert f"open {tmp_path / 'site' / 'index.html'}" in result.stderr
    own = runner.invoke(app, ["build", str(ROOT / "generator" / "replay_site" / "examples"), "-o", str(tmp_path / "own")])
    assert own.exit_code == 0 and "Next:" not in own.stderr  # a user who named their logs needs no hint


def test_the_netlify_guide_publishes_the_example_site_with_the_headers_every_site_carries():
    import tomllib

    netlify = tomllib.loads((ROOT / "netlify.toml").read_text(encoding="utf-8"))
    assert netlify["build"] == {"publish": "example_output", "command": ""}  # committed, no build step
    published = ROOT / netlify["build"]["publish"]
    assert (published / "index.html").is_file() and (published / "sessions.json").is_file()
    headers = dict(line.strip().split(": ", 1) for line in (published / "_headers").read_text().splitlines()[1:])
    (rule,) = netlify["headers"]
    assert rule["for"] == "/*"
    # netlify.toml sets the site's own headers; the site's _headers adds frame-ancestors
    assert headers["Content-Security-Policy"] == rule["values"]["Content-Security-Policy"] + "; frame-ancestors 'none'"
    assert {key: value for key, value in headers.items() if key != "Content-Security-Policy"} == \
        {key: value for key, value in rule["values"].items() if key != "Content-Security-Policy"}
    guide = (DOCS / "guides" / "publish.md").read_text(encoding="utf-8")
    assert "netlify.toml" in guide and "example_output/" in guide and "_headers" in guide


SITECHECK = ROOT.parent / "shared" / "tools" / "sitecheck.py"


def test_the_site_the_netlify_guide_publishes_passes_sitecheck(tmp_path):
    """The guide's way: `replay-site build` of the bundled examples into the folder netlify.toml
    publishes; the shared structural checks find no problem in it (skipped on a clone without ../shared)."""
    if not SITECHECK.is_file():
        pytest.skip(f"no {SITECHECK}: the shared tools sit beside the repository")
    site = tmp_path / "example_output"
    subprocess.run([sys.executable, "-c", "from replay_site.cli.entry import main; main()", "build",
                    str(ROOT / "generator" / "replay_site" / "examples"), "-o", str(site), "-q", "--no-archive"],
                   check=True, capture_output=True, timeout=300)
    checked = subprocess.run([sys.executable, str(SITECHECK), str(site)], capture_output=True, text=True, timeout=120)
    assert checked.stdout.strip().endswith(" 0 problems"), checked.stdout


def _command_lines(text: str) -> list[str]:
    """Each `replay-site …` command written in a page: in code spans and in code blocks,
    cut at a shell's `&&`, `|`, `;` or comment."""
    found = re.findall(r"`(replay-site [^`\n]+)`", text)
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M):
        found += [line.strip() for line in block.splitlines() if line.strip().startswith("replay-site ")]
    found += [part.strip() for line in re.findall(r"run: (.*)", text) for part in line.split("&&")
              if part.strip().startswith("replay-site ")]
    return [re.split(r"\s(?:&&|\||;|#)\s", line)[0] for line in found]


def test_every_command_the_docs_write_uses_options_that_exist():
    commands = reference.commands()
    pages = [ROOT / "README.md", *DOCS.glob("*.md"), *DOCS.glob("guides/*.md"), *DOCS.glob("reference/*.md")]
    checked = 0
    for page in pages:
        for line in _command_lines(page.read_text(encoding="utf-8")):
            words = line.split()[1:]
            if not words or words[0].startswith("-"):
                assert set(words) <= {"--version", "--help"}, (page.name, line)
                continue
            name = words[0]
            if len(words) > 1 and f"{name} {words[1]}" in commands:  # a group's command: `archive list`
                name, words = f"{name} {words[1]}", words[1:]
            if len(words) == 1 and any(command.startswith(f"{name} ") for command in commands):  # a group named alone
                checked += 1
                continue
            if name.isupper():  # a placeholder: `replay-site COMMAND --help`
                continue
            assert name in commands, (page.name, line)
            command, context = commands[name]
            spellings = {spelling for parameter in command.get_params(context)
                         for spelling in [*parameter.opts, *parameter.secondary_opts]}
            for word in words[1:]:
                flag = word.split("=")[0].strip("[]().,")
                if flag.startswith("-") and flag not in ("-", "--"):
                    assert flag in spellings, f"{page.name}: {line}: {name} has no {flag}"
            checked += 1
    assert checked > 30
