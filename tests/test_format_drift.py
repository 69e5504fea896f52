"""`formats --check` sees a format change in a field, not only in a new kind: a field renamed
(required, now missing) or retyped (a count turned string, which the figures would read as 0)
is a finding naming file, line and field; unknown kinds name the file and line they are first at.
The logs are copies of hand-written fixtures with one field changed on a known line."""
from __future__ import annotations

import json
import shutil

from typer.testing import CliRunner

from replay_site.cli.app import app
from replay_site.readers.drift import field_findings

runner = CliRunner()
CLAUDE = "c2126000-0000-4000-8000-0000000071e5.jsonl"  # tests/data/claude/-home-dev-tiers: 4 lines
CODEX = "codex/v0148-fast/sessions/2026/10/20/rollout-2026-10-20T12-00-00-01a10000-0000-7000-8000-0000000fa570.jsonl"


def changed(source, target, line, change):
    """`source` copied to `target` with `change` applied to the object on 1-based `line`."""
    lines = source.read_text().splitlines()
    obj = json.loads(lines[line - 1])
    change(obj)
    lines[line - 1] = json.dumps(obj)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines) + "\n")


def check(root):
    result = runner.invoke(app, ["formats", "--check", str(root)])
    return result.exit_code, result.output.splitlines()


def test_unchanged_fixtures_have_no_findings(data, tmp_path):
    shutil.copytree(data / "claude/-home-dev-tiers", tmp_path / "claude")
    code, output = check(tmp_path)
    assert code == 0 and output == ["1 session read: every record kind known, no file skipped"]


def test_a_retyped_and_a_renamed_claude_usage_field_name_file_line_and_field(data, tmp_path):
    def drift(obj):
        usage = obj["message"]["usage"]
        usage["input_tokens"] = str(usage["input_tokens"])  # retyped: "1000"
        usage["outputTokens"] = usage.pop("output_tokens")  # renamed
    changed(data / "claude/-home-dev-tiers" / CLAUDE, tmp_path / "p" / CLAUDE, 4, drift)
    code, output = check(tmp_path)
    assert code == 1
    assert f"p/{CLAUDE}:4: claude assistant: field message.usage.input_tokens: expected integer, found string" in output
    assert f"p/{CLAUDE}:4: claude assistant: field message.usage.output_tokens: missing" in output
    assert output[-1] == "1 session read: 2 findings"


def test_a_codex_token_count_retyped_and_a_new_kind_are_found_where_they_are(data, tmp_path):
    target = tmp_path / "rollout.jsonl"

    def drift(obj):
        obj["payload"]["info"]["total_token_usage"]["output_tokens"] = 1000.0  # a float where Codex writes i64
    changed(data / CODEX, target, 6, drift)
    with target.open("a") as handle:
        handle.write(json.dumps({"timestamp": "2026-10-20T12:00:05.000Z", "type": "event_msg",
                                 "payload": {"type": "thread_memory_saved"}}) + "\n")
    code, output = check(target)
    assert code == 1
    assert "rollout.jsonl:6: codex event_msg/token_count: field payload.info.total_token_usage.output_tokens: " \
           "expected integer, found number" in output
    assert "codex 0.148.0: unknown record kinds: event_msg/thread_memory_saved (1, first at rollout.jsonl:8)" in output


def test_findings_of_one_field_repeated_on_many_lines_are_counted_after_the_first_three(data, tmp_path):
    source = (data / "claude/-home-dev-tiers" / CLAUDE).read_text().splitlines()
    lines = [json.loads(source[0]) for _ in range(5)]
    for number, obj in enumerate(lines):
        obj["uuid"], obj["message"]["text"] = f"u{number}", obj["message"].pop("content")  # content renamed, 5 times
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(obj) + "\n" for obj in lines))
    code, output = check(tmp_path)
    said = [line for line in output if "message.content" in line]
    assert said == [f"s.jsonl:{n}: claude user: field message.content: missing" for n in (1, 2, 3)] + \
        ["claude user: field message.content: missing on 2 more line(s)"]


def test_the_field_rules():
    line = {"type": "user", "message": {"role": "user"}}
    assert field_findings("claude", line) == [("user", "message.content", "missing")]
    assert field_findings("claude", {"type": "user", "message": "text"}) == [("user", "message", "expected object, found string")]
    assert field_findings("claude", {"type": "user", "message": {"content": "hi"}, "promptSource": 3}) == \
        [("user", "promptSource", "expected string, found integer")]
