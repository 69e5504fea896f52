"""Redaction (on by default): every string of the model, counted per kind, never recursing."""
from __future__ import annotations

import json
import re

import pytest

from secret_set import SECRETS
from test_site import glue_session
from typer.testing import CliRunner

from replay_site.pipeline import stages as site
from replay_site.pipeline import source_passes
from replay_site.cli.app import app
from replay_site.model import Detail, FileChange, Session, Step, ToolCall, Variable
from replay_site.redact import Detector, redact_session

GITHUB, GITLAB, AWS = SECRETS["github-pat"], SECRETS["gitlab-pat"], SECRETS["aws-access-key-id"]
runner = CliRunner()


def test_every_text_field_is_redacted_and_counted_per_kind():
    call = ToolCall("bash", id="call-1", arguments={"env": {"GH": GITHUB}, GITLAB: "as a key"}, code=f"export GH={GITHUB}",
                    output=f"id {AWS}", changes=[FileChange(f"keys/{GITLAB}.txt", diff=f"+KEY={GITHUB}\n")])
    step = Step("assistant", text=f"I found {GITHUB}", thinking=f"the token {GITLAB}", tool_calls=[call],
                details=[Detail("LLM request", "postgres://admin:s3cretpass@db/x")], variables=[Variable("k", GITHUB)])
    child = Session("child", "test", steps=[Step("assistant", text=GITLAB)], parent_id="s")
    session = Session("s", "test", title=f"leak {AWS}", steps=[step], children=[child])
    total = redact_session(session)
    flat = repr(session) + repr(child)
    assert GITHUB not in flat and GITLAB not in flat and AWS not in flat and "s3cretpass" not in flat
    # By hand: the GitHub token is in the env argument, the code, the diff, the prose and the
    # variable (5); the GitLab one in an argument key, the file path and the thinking (3); the
    # AWS key id in the output and the title (2); the URL password in the detail (1).
    assert session.redactions == {"aws-access-key-id": 2, "github-pat": 5, "gitlab-pat": 3, "generic-credential-uri": 1}
    assert child.redactions == {"gitlab-pat": 1}
    assert total == sum(session.redactions.values()) + 1
    assert "[REDACTED:github-pat·32-63chars]" in step.text and "[REDACTED:aws-access-key-id·16-31chars]" in session.title
    assert call.id == "call-1" and session.id == "s"  # identities that link pages are left alone


def test_secrets_split_by_colour_codes_or_escaped_in_json_strings_are_found():
    split = f"token {GITHUB[:7]}\x1b[1;31m{GITHUB[7:]}\x1b[0m done"
    escaped = json.dumps({"cfg": json.dumps({"token": GITLAB, "url": "https://x.dev/a/b"})})
    step = Step("user", text=split, tool_calls=[ToolCall("t", output=escaped)])
    session = Session("s", "test", steps=[step])
    redact_session(session)
    assert GITHUB not in step.text and "done" in step.text and "[REDACTED:github-pat·32-63chars]" in step.text
    assert GITLAB not in step.tool_calls[0].output and "[REDACTED:gitlab-pat·16-31chars]" in step.tool_calls[0].output


def test_ordinary_hashes_ids_and_placeholders_are_left_readable():
    text = ("commit 3fadc92a1b2c3d4e5f60718293a4b5c6d7e8f901, uuid 019e1625-789d-76c0-80ab-3724b5ddb799, "
            "GITHUB_TOKEN=${GITHUB_TOKEN} API_KEY=<your-api-key> DB_PASSWORD=**** AKIAIOSFODNN7EXAMPLE")
    session = Session("s", "test", steps=[Step("user", text=text)])
    assert redact_session(session) == 0
    assert session.steps[0].text == text and session.redactions == {}


def test_context_rules_catch_what_token_catalogues_miss():
    detector = Detector()
    cases = {
        "Authorization: Basic ZGVwbG95OnMzY3JldHBhc3N3b3Jk": "ZGVwbG95OnMzY3JldHBhc3N3b3Jk",
        "SMTP_PASSWORD=c0rrect-horse-battery": "c0rrect-horse-battery",
        "curl 'https://api.x.dev/v1?api_key=q8w7e6r5t4y3&x=1'": "q8w7e6r5t4y3",
        "mysql -u root -pTr0ub4dor3x prod": "Tr0ub4dor3x",
        "./sync --password Hunter2Hunter2": "Hunter2Hunter2",
        "redis://:s3cr3tpw@cache:6379/0": "s3cr3tpw",
    }
    for text, secret in cases.items():
        found = [text[hit.start:hit.end] for hit in detector.find(text)]
        assert any(secret in value for value in found), (text, found)


def test_code_that_names_a_secret_is_not_a_secret():
    detector = Detector()
    for text in ("env.OPENAI_API_KEY = 'proxy-handled';", "const headers = { Authorization: authHeader };",
                 "DB_PASSWORD: process.env.DB_PASSWORD,", "API_KEY = read_key()"):
        assert detector.find(text) == [], text


def test_user_patterns_add_rules():
    session = Session("s", "test", steps=[Step("user", text="ticket ACME-INTERNAL-4242 and ACME-INTERNAL-7")])
    redact_session(session, (r"ACME-INTERNAL-\d{4}",))
    assert session.steps[0].text == "ticket [REDACTED:custom·16-31chars] and ACME-INTERNAL-7"
    assert session.redactions == {"custom": 1}


def test_deep_nesting_never_recurses_and_is_capped_with_a_marker():
    deep: dict = {"leaf": GITHUB}
    for _ in range(2000):
        deep = {"a": [deep]}
    text = '{"a":[' * 2000 + json.dumps({"leaf": GITHUB}) + "]}" * 2000  # deeper than JSON readers go
    call = ToolCall("t", arguments=deep, output=text)
    session = Session("s", "test", steps=[Step("assistant", tool_calls=[call])])
    redact_session(session)
    node, depth = call.arguments, 0
    while isinstance(node, (dict, list)):
        node, depth = (node["a"] if isinstance(node, dict) else node[0]), depth + 1
    assert node == "… nested deeper than 100 levels" and 90 < depth <= 100  # counted from the session
    assert GITHUB not in call.output  # found in the text even where the JSON cannot be parsed


def test_a_default_build_shows_no_secret_anywhere_and_no_redact_leaves_them(tmp_path):
    lines = [json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "user_message", "text": f"use {SECRETS['anthropic']}"}),
             json.dumps({"timestamp": "2026-01-01T00:00:01Z", "type": "tool_call", "id": "c1", "name": "bash",
                         "arguments": {"command": f"curl -H 'Authorization: Bearer {SECRETS['bearer-token']}' x"}}),
             json.dumps({"timestamp": "2026-01-01T00:00:02Z", "type": "tool_result", "call_id": "c1", "success": True,
                         "content": f"GITHUB={GITHUB}\n{SECRETS['jwt']}"})]
    source = glue_session(tmp_path / "logs" / "s", lines)
    secrets = [SECRETS["anthropic"], SECRETS["bearer-token"], GITHUB, SECRETS["jwt"]]
    redacted = tmp_path / "redacted"
    site.build([source], redacted, site.BuildOptions())
    everything = lambda folder: "".join(p.read_text() for p in folder.rglob("*") if p.is_file())  # noqa: E731
    assert not any(secret in everything(redacted) for secret in secrets)
    assert "[REDACTED:jwt·128-255chars]" in everything(redacted)
    result = runner.invoke(app, ["build", str(source), "--no-redact", "-o", str(tmp_path / "plain"), "-q"])
    assert result.exit_code == 0, result.output
    assert all(secret in everything(tmp_path / "plain") for secret in secrets)  # the option is what shows them
    left = re.search(r"--no-redact: (\d+) likely secrets are left in the output", result.stderr)
    assert left and int(left[1]) >= 4, result.stderr  # the bearer token is in two strings (command, code)


def test_export_compare_and_show_redact_by_default(tmp_path):
    line = json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "user_message", "text": f"key {GITHUB}"})
    source = glue_session(tmp_path / "logs" / "s", [line])
    result = runner.invoke(app, ["export", str(source), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    assert GITHUB not in (tmp_path / "r.html").read_text()
    result = runner.invoke(app, ["compare", str(source), str(source), "-o", str(tmp_path / "c.html")])
    assert result.exit_code == 0, result.output
    assert GITHUB not in (tmp_path / "c.html").read_text() and "[REDACTED:github-pat·32-63chars]" in (tmp_path / "c.html").read_text()
    result = runner.invoke(app, ["show", str(source)])
    assert result.exit_code == 0 and GITHUB not in result.stdout and "[REDACTED:github-pat·32-63chars]" in result.stdout
    result = runner.invoke(app, ["show", str(source), "--no-redact"])
    assert GITHUB in result.stdout and "likely secrets are left" in result.stderr


def test_the_redaction_setting_is_part_of_the_cache_key():
    assert site._cache_key(site.BuildOptions()) != site._cache_key(site.BuildOptions(redact=False))
    assert site._cache_key(site.BuildOptions()) != site._cache_key(site.BuildOptions(redact_patterns=("x",)))


def test_a_missing_scanner_stops_the_command_with_one_error_line(tmp_path, monkeypatch):
    import builtins

    from replay_site import catalogue

    real_import = builtins.__import__

    def no_kingfisher(name, *args, **kwargs):
        if name == "kingfisher_sdk":
            raise ImportError("No module named 'kingfisher_sdk'")
        return real_import(name, *args, **kwargs)

    line = json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "user_message", "text": f"key {GITHUB}"})
    source = glue_session(tmp_path / "logs" / "s", [line])
    monkeypatch.setattr(builtins, "__import__", no_kingfisher)
    catalogue._load_scanner.cache_clear()
    try:
        result = runner.invoke(app, ["export", str(source), "-o", str(tmp_path / "r.html")])
    finally:
        monkeypatch.undo()
        catalogue._load_scanner.cache_clear()
    assert result.exit_code == 1 and result.stderr.startswith("error: secret redaction needs kingfisher"), result.output
    assert not (tmp_path / "r.html").exists()


def test_no_redact_counts_what_it_leaves_in_the_one_read_of_each_log(tmp_path, monkeypatch):
    """The --no-redact warning comes from pass 1's read: each log is read once per build."""
    line = json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "user_message", "text": f"key {GITHUB}"})
    source = glue_session(tmp_path / "logs" / "s", [line])
    reads: list[str] = []
    original = source_passes.read_source
    monkeypatch.setattr(source_passes, "read_source", lambda found, options: (reads.append(found.rel), original(found, options))[1])
    result = runner.invoke(app, ["build", str(source), "--no-redact", "-o", str(tmp_path / "plain"), "-q", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert reads == ["s"]
    # the token in the prompt and in the title made from it
    assert "--no-redact: 2 likely secrets are left in the output" in result.stderr
    # Answered from the cache the second time: the count comes with the cached summaries.
    result = runner.invoke(app, ["build", str(source), "--no-redact", "-o", str(tmp_path / "plain"), "-q", "-j", "1", "--force"])
    assert reads == ["s"] and "2 likely secrets" in result.stderr, result.stderr


def test_a_token_in_a_terminal_link_target_is_redacted_before_the_link_is_made():
    from replay_site import ansi

    output = f"\x1b]8;;https://api.acme.dev/r?sig=1&x={GITHUB}\x1b\\open the report\x1b]8;;\x1b\\ done"
    session = Session("s", "test", steps=[Step("user", tool_calls=[ToolCall("t", output=output)])])
    redact_session(session)
    (link,) = [span for span in ansi.spans(session.steps[0].tool_calls[0].output) if span.href]
    assert GITHUB not in session.steps[0].tool_calls[0].output
    assert link.text == "open the report" and link.href.endswith("x=[REDACTED:github-pat·32-63chars]")


def test_an_id_holding_a_secret_becomes_a_hash_that_still_links_parent_and_child():
    child = Session(f"agent-{GITLAB}", "test", parent_id=f"run-{GITHUB}", source=f"logs/{GITLAB}/agent.jsonl")
    step = Step("assistant", child_session_ids=[child.id], tool_calls=[ToolCall("Task", child_session_id=child.id)])
    session = Session(f"run-{GITHUB}", "test", steps=[step], children=[child], source=f"logs/{GITHUB}.jsonl")
    redact_session(session)
    assert re.fullmatch(r"redacted-[0-9a-f]{16}", session.id) and re.fullmatch(r"redacted-[0-9a-f]{16}", child.id)
    assert child.parent_id == session.id and step.child_session_ids == [child.id] == [step.tool_calls[0].child_session_id]
    assert session.source == "logs/[REDACTED:github-pat·32-63chars].jsonl" and child.source == "logs/[REDACTED:gitlab-pat·16-31chars]/agent.jsonl"


def test_a_long_session_redacted_a_few_steps_at_a_time_is_redacted_as_a_whole(monkeypatch):
    """Issue 20: redaction holds the views of a few steps at a time. A value found only by its
    key (`MY_SERVICE_API_KEY`, in step 3's arguments) must still be redacted where it stands
    alone, in steps 1 and 4 (other parts): by hand, three places, one kind."""
    from replay_site import redact

    value = "q8Zr3Lx0Vn7Tb2Wk9Ym4Pa"  # no token format of its own: only its key names it a secret

    def session() -> Session:
        call = ToolCall("bash", arguments={"env": {"MY_SERVICE_API_KEY": value}, "deep": [[[[value]]]]})
        steps = [Step("user", text=value), Step("assistant", text="ok"), Step("assistant", tool_calls=[call]),
                 Step("user", text=value)]
        return Session("s", "test", title=value, steps=steps)

    whole = session()
    redact_session(whole)
    monkeypatch.setattr(redact, "STEPS_AT_ONCE", 1)
    parts = session()
    redact_session(parts)
    marker = "[REDACTED:assignment-secret·16-31chars]"
    assert parts.steps[0].text == parts.steps[3].text == parts.title == marker
    assert parts.redactions == {"assignment-secret": 5}  # title, steps 1 and 4, the env value, the nested one
    assert repr(parts) == repr(whole)


def test_a_session_redacted_part_by_part_as_it_is_read_is_redacted_as_a_whole_or_not_at_all():
    """Issue 20 (load.StreamedRead): parts are redacted as they come. A value named by a
    secret's key in part 1 is redacted where it stands alone in part 2 (as the whole session's
    redaction does: by hand, title, step 2's text and the argument, three); named only in part
    2 after standing alone in part 1, part 1 would have been redacted differently: NotTheSame."""
    from replay_site.redact import NotTheSame, PartsRedaction

    value = "q8Zr3Lx0Vn7Tb2Wk9Ym4Pa"

    def steps() -> list[Step]:
        return [Step("assistant", tool_calls=[ToolCall("bash", arguments={"env": {"MY_SERVICE_API_KEY": value}})]),
                Step("user", text=value)]

    whole = Session("s", "test", title=value, steps=steps())
    redact_session(whole)
    parts, head = PartsRedaction(), Session("s", "test", title=value)
    head.steps = steps()
    parts.steps(head.steps[:1])
    parts.steps(head.steps[1:])
    parts.session(head)
    assert head.steps[1].text == head.title == "[REDACTED:assignment-secret·16-31chars]"
    assert head.redactions == whole.redactions == {"assignment-secret": 3}
    assert repr(head) == repr(whole)

    backwards = PartsRedaction()
    later, earlier = steps()
    backwards.steps([earlier])
    with pytest.raises(NotTheSame):
        backwards.steps([later])
