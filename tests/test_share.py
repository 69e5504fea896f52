"""Sharing a site or a file safely: what reaches a terminal or CI log, file modes, signals,
headers for static hosts, link previews."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from publishtools import siblings

from replay_site import ansi
from replay_site.pipeline import stages as site

DATA = Path(__file__).parent / "data"


def test_c1_controls_are_shown_as_marks_and_hide_nothing():
    # U+009D (OSC) and U+009B (CSI) start escape sequences only as bytes on an 8-bit
    # terminal; obeyed here they would swallow the rest of the line.
    text = "tests passed\u009d ERROR: build failed\u009b31m still here"
    shown = "".join(span.text for span in ansi.spans(text))
    assert shown == "tests passed⟦U+009D⟧ ERROR: build failed⟦U+009B⟧31m still here"
    assert ansi.plain(text) == shown
    assert ansi.for_terminal(text, color=False) == "tests passed\\x9d ERROR: build failed\\x9b31m still here"


def test_a_name_printed_as_one_line_cannot_start_another():
    name = "logs/x\n::error::forged\r\u2028.jsonl"
    line = ansi.for_terminal(f"warning: {name}: 1 bad line", color=False, line=True)
    assert "\n" not in line and "\r" not in line and "\u2028" not in line
    assert line == "warning: logs/x\\x0a::error::forged\\x0d\\u2028.jsonl: 1 bad line"


def test_a_newline_in_a_log_file_name_forges_no_warning_line(tmp_path):
    logs = tmp_path / "logs"
    bad = logs / "x\n::error::forged" / "conversation.jsonl"
    bad.parent.mkdir(parents=True)
    good = (DATA / "gptme" / "markdown-hello" / "conversation.jsonl").read_text()
    bad.write_text(good + "{not json\n")
    result = subprocess.run([sys.executable, "-c", "from replay_site.cli.entry import main; main()", "build", str(logs),
                             "-o", str(tmp_path / "site"), "-f", "gptme"], capture_output=True, text=True, env=_env(), check=False)
    assert result.returncode == 0, result.stderr
    assert "bad" in result.stderr or "warning" in result.stderr
    assert not any(line.startswith("::error::") for line in result.stderr.splitlines()), result.stderr


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "generator")}


def test_export_and_compare_write_files_a_web_server_can_read(tmp_path):
    log = next((DATA / "claude").rglob("*.jsonl"))
    script = ("import os, sys; os.umask(0o022); sys.argv[0] = 'replay-site'; from replay_site.cli.entry import main; main()")
    out = tmp_path / "one.html"
    result = subprocess.run([sys.executable, "-c", script, "export", str(log), "-o", str(out)],
                            capture_output=True, text=True, env=_env(), check=False)
    assert result.returncode == 0, result.stderr
    assert out.stat().st_mode & 0o777 == 0o644
    compared = tmp_path / "compare.html"
    result = subprocess.run([sys.executable, "-c", script, "compare", str(log), str(log), "-o", str(compared)],
                            capture_output=True, text=True, env=_env(), check=False)
    assert result.returncode == 0, result.stderr
    assert compared.stat().st_mode & 0o777 == 0o644


# The build stops itself with the signal on its first source read: no timing to miss.
_STOP_MIDWAY = """
import os, signal, sys
from replay_site.pipeline import source_passes
read = source_passes.read_source
def stop(*args, **kwargs):
    os.kill(os.getpid(), signal.{name})
    return read(*args, **kwargs)
source_passes.read_source = stop
sys.argv[0] = "replay-site"
from replay_site.cli.entry import main
main()
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("extra", [(), ("--full",)], ids=["fast-entry", "typer"])
def test_ctrl_c_and_sigterm_exit_128_plus_the_signal_and_leave_no_staging_folder(tmp_path, name, extra):
    out = tmp_path / "site"
    command = [sys.executable, "-c", _STOP_MIDWAY.format(name=name), "build", str(DATA / "gptme"), "-o", str(out), "-j", "1", *extra]
    result = subprocess.run(command, capture_output=True, text=True, env=_env(), timeout=120, check=False)
    assert result.returncode == 128 + getattr(signal, name), result.stderr
    assert "Aborted!" in result.stderr or extra  # typer's own message, if any, is typer's
    assert not out.exists() and siblings(out) == []


def test_a_built_site_has_a_headers_file_and_link_previews(tmp_path):
    out = tmp_path / "site"
    site.build([DATA / "gptme" / "markdown-hello"], out, site.BuildOptions(format="gptme"))
    headers = (out / "_headers").read_text()
    page = next((out / "sessions").glob("*.html"))
    soup = BeautifulSoup(page.read_text(), "html.parser")
    meta_csp = soup.find("meta", attrs={"http-equiv": "Content-Security-Policy"})["content"]
    assert headers.startswith("/*\n") and f"Content-Security-Policy: {meta_csp}; frame-ancestors 'none'" in headers
    title = soup.find("meta", property="og:title")["content"]
    assert title == soup.title.string
    description = soup.find("meta", property="og:description")["content"]
    # The header's figures in one line: the agent and version from the first system message,
    # the steps and the one failed command the page header shows, gptme's local start time.
    assert description == "gptme 0.35.1 session, 10 steps, 1 error, started 2026-03-02 10:00:00 local"
    index = BeautifulSoup((out / "index.html").read_text(), "html.parser")
    assert index.find("meta", property="og:title")["content"] == index.title.string


def test_anonymize_replaces_people_and_places_with_stable_placeholders():
    from replay_site.model import Session, Step
    from replay_site.redact.anonymize import anonymize_session

    text = ("cd /home/alice/src && ls /Users/alice/Desktop\nalice@build-box:~$ git log --author ann.lee@acme.dev\n"
            "C:\\Users\\alice\\repo; alice wrote it")
    child = Session("c", "claude", steps=[Step("user", text="mail ann.lee@acme.dev")], source="claude/-home-alice-app/c.jsonl")
    session = Session("s", "claude", cwd="/home/alice/src", steps=[Step("user", text=text)], children=[child],
                      source="claude/-home-alice-app/s.jsonl")
    anonymize_session(session)
    shown = session.steps[0].text
    assert "alice" not in shown and "ann.lee" not in shown and "build-box" not in shown
    assert shown.startswith("cd /home/<user>/src && ls /Users/<user>/Desktop\n<user>@<host-")
    assert "C:\\Users\\<user>\\repo; <user> wrote it" in shown
    email = shown.split("--author ")[1].split("\n")[0]
    assert email.startswith("<email-") and child.steps[0].text == f"mail {email}"  # the same in every session
    assert session.cwd == "/home/<user>/src" and session.source == "claude/-home-<user>-app/s.jsonl"


def test_anonymize_leaves_no_home_path_in_a_built_site(tmp_path):
    out = tmp_path / "site"
    site.build([DATA / "claude", DATA / "codex"], out, site.BuildOptions(anonymize=True))
    names = "\n".join(str(path.relative_to(out)) for path in out.rglob("*"))
    text = names + "".join(path.read_text(errors="replace") for path in out.rglob("*") if path.is_file())
    assert "/home/dev" not in text and "-home-dev-" not in text and "home%2Fdev" not in text
    assert "/home/&lt;user&gt;" in text or "/home/<user>" in text


def test_show_export_and_compare_take_anonymize(tmp_path):
    log = DATA / "claude" / "-home-dev-calc-demo" / "5b1e7c2a-3f4d-4e6a-9b8c-0d1e2f3a4b5c.jsonl"
    script = "import sys; sys.argv[0] = 'replay-site'; from replay_site.cli.entry import main; main()"
    shown = subprocess.run([sys.executable, "-c", script, "show", str(log), "--anonymize"],
                           capture_output=True, text=True, env=_env(), check=False)
    assert shown.returncode == 0, shown.stderr
    plain = subprocess.run([sys.executable, "-c", script, "show", str(log)], capture_output=True, text=True, env=_env(), check=False)
    assert "/home/dev" in plain.stdout and "/home/dev" not in shown.stdout  # its tool calls name files under /home/dev
    for command in (["export", str(log)], ["compare", str(log), str(log)]):
        out = tmp_path / f"{command[0]}.html"
        done = subprocess.run([sys.executable, "-c", script, *command, "-o", str(out), "--anonymize"],
                              capture_output=True, text=True, env=_env(), check=False)
        assert done.returncode == 0, done.stderr
        assert "/home/dev" not in out.read_text() and "-home-dev-" not in out.read_text()
