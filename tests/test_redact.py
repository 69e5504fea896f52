"""`--redact`: credentials in any text of a log never reach the built pages."""
from __future__ import annotations

import json

from test_site import glue_session
from typer.testing import CliRunner

from replay_site import site
from replay_site.cli import app
from replay_site.model import Detail, FileChange, Session, Step, ToolCall
from replay_site.redact import redact_session

# Shapes of real credentials, made up for the test (none of them is a live key).
SECRETS = {
    "OpenAI key": "sk-proj-" + "a1B2" * 10,
    "Anthropic key": "sk-ant-api03-" + "Z9y8" * 8,
    "GitHub token": "ghp_" + "x" * 36,
    "AWS access key": "AKIA" + "ABCDEFGHIJKLMNOP",
    "Slack token": "xoxb-1234567890-abcdefghij",
    "JSON web token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "password in URL": "admin:hunter2secret",
}


def test_every_text_field_is_redacted_and_counted():
    key, token, aws = SECRETS["OpenAI key"], SECRETS["GitHub token"], SECRETS["AWS access key"]
    call = ToolCall("bash", id="call-1", arguments={"env": {"OPENAI_API_KEY": key}}, code=f"export GH={token}",
                    output=f"AWS_ACCESS_KEY_ID={aws}", changes=[FileChange(".env", diff=f"+KEY={key}\n")])
    step = Step("assistant", text=f"I found {key}", thinking=f"the token {token}", tool_calls=[call],
                details=[Detail("LLM request", f"postgres://{SECRETS['password in URL']}@db/x")])
    child = Session("child", "test", steps=[Step("assistant", text=SECRETS["Slack token"])], parent_id="s")
    session = Session("s", "test", title=f"leak {aws}", steps=[step], children=[child])
    assert redact_session(session) == 9
    flat = json.dumps([repr(session), repr(child)])
    for name in ("OpenAI key", "GitHub token", "AWS access key", "Slack token", "password in URL"):
        assert SECRETS[name] not in flat, name
    assert "[REDACTED OpenAI key]" in step.text and "[REDACTED AWS access key]" in session.title
    assert call.id == "call-1"  # identities that link pages are left alone
    assert [f.value for f in session.facts if f.label == "Redacted"] == ["8 secrets replaced before rendering"]
    assert [f.value for f in child.facts if f.label == "Redacted"] == ["1 secrets replaced before rendering"]


def test_ordinary_hashes_and_ids_are_left_readable():
    text = "commit 3fadc92a1b2c3d4e5f60718293a4b5c6d7e8f901, uuid 019e1625-789d-76c0-80ab-3724b5ddb799, sk-short"
    session = Session("s", "test", steps=[Step("user", text=text)])
    assert redact_session(session) == 0
    assert session.steps[0].text == text


def test_a_redacted_build_shows_no_secret_anywhere(tmp_path):
    lines = [json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "user_message", "text": f"use {SECRETS['Anthropic key']}"}),
             json.dumps({"timestamp": "2026-01-01T00:00:01Z", "type": "tool_call", "id": "c1", "name": "bash",
                         "arguments": {"command": "env"}}),
             json.dumps({"timestamp": "2026-01-01T00:00:02Z", "type": "tool_result", "call_id": "c1", "success": True,
                         "content": "\n".join(f"{name}=postgres://{value}@db/app" if name == "password in URL" else f"{name}={value}"
                                                for name, value in SECRETS.items())})]
    source = glue_session(tmp_path / "logs" / "s", lines)
    plain, redacted = tmp_path / "plain", tmp_path / "redacted"
    site.build([source], plain, site.BuildOptions())
    site.build([source], redacted, site.BuildOptions(redact=True))
    everything = lambda folder: "".join(p.read_text() for p in folder.rglob("*") if p.is_file())  # noqa: E731
    assert all(secret in everything(plain) for secret in SECRETS.values())  # the option is what hides them
    assert not any(secret in everything(redacted) for secret in SECRETS.values())
    assert "[REDACTED JSON web token]" in everything(redacted)


def test_export_redacts_on_request(tmp_path):
    line = json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "user_message", "text": SECRETS["GitHub token"]})
    source = glue_session(tmp_path / "logs" / "s", [line])
    result = CliRunner().invoke(app, ["export", str(source), "--redact", "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    assert SECRETS["GitHub token"] not in (tmp_path / "r.html").read_text()
