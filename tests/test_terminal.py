"""`replay-site show`, `list` and `check` through the CLI runner.

Figures come from corpus/glue/constructed/1789374063402-48211-1k2x9fq (hand-made from Glue's
schema): 9 steps; 7 tool calls of which 2 fail (a denied `dart test` and an edit whose
old_string was not found), so 2 errors; every assistant step has a `usage` row on
anthropic/claude-sonnet-5, so every step with usage is priced by estimate.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from replay_site.cli.app import app

runner = CliRunner()
SESSION = "glue/constructed/1789374063402-48211-1k2x9fq"


def test_show_prints_a_block_per_step_with_a_header(corpus):
    result = runner.invoke(app, ["show", str(corpus / SESSION), "--max-prose", "40", "--max-output", "20"])
    assert result.exit_code == 0, result.output
    header = result.stdout.splitlines()[0]
    assert re.fullmatch(r"Session timeline — 9 steps, total cost: ≈ \$\d+\.\d{4}", header)
    blocks = re.findall(r"^\[Step (\d+) / (\S+ \S+ UTC) / (.+) / ([^/\]]+)\]$", result.stdout, re.M)
    assert [int(b[0]) for b in blocks] == list(range(1, 10))
    assert result.stdout.count("✗ ") == 2  # the two failed calls
    assert "more characters]" in result.stdout  # prose and output are cut to the limits


def test_show_by_id_and_last(corpus):
    by_id = runner.invoke(app, ["show", "1789374063402-48211", "-s", str(corpus / "glue")])
    assert by_id.exit_code == 0, by_id.output
    assert "Fix formatDuration" in by_id.stdout
    last = runner.invoke(app, ["show", "--last", "-s", str(corpus / "glue")])
    assert last.exit_code == 0
    # the newest start in corpus/glue is 1790946341220-* (2026-10-02, meta.json start_time)
    assert "RetryPolicy maxDelay audit" in last.stdout
    missing = runner.invoke(app, ["show", "no-such-id", "-s", str(corpus / "glue")])
    assert missing.exit_code == 1 and "no session with id" in missing.stderr


def test_check_names_sessions_over_budget_and_exits_1(corpus):
    over = runner.invoke(app, ["check", str(corpus / SESSION), "--max-errors", "1", "--json"])
    assert over.exit_code == 1
    verdict = json.loads(over.stdout)
    assert verdict["checked"] == 1
    assert [(b["id"], b["errors"]) for b in verdict["over_budget"]] == [("1789374063402-48211-1k2x9fq", 2)]
    within = runner.invoke(app, ["check", str(corpus / SESSION), "--max-errors", "2", "--max-cost", "100"])
    assert within.exit_code == 0, within.output
    assert "1 session checked, 0 over budget, 0 cost unknown" in within.stdout


def test_check_on_the_corpus_tells_over_budget_from_cost_unknown(corpus):
    # --max-cost 1: Claude 196820da (≈ $7.29) and Codex 019e1625 (≈ $8.37) are over; the 7
    # sessions of unpriced models (4 gptme local/mock-*, 2 rlm scripted-planner-v2, Glue's
    # gemma3 step) are cost unknown, not over budget
    result = runner.invoke(app, ["check", str(corpus), "--max-cost", "1"])
    assert result.exit_code == 1
    assert "34 sessions checked, 2 over budget, 7 cost unknown" in result.stdout
    assert [line.split()[2] for line in result.stdout.splitlines() if line.startswith("OVER BUDGET")] == [
        "196820da-1026-4b6f-a513-a6aae42da1a6", "019e1625-789d-76c0-80ab-3724b5ddb799"]
    assert sum(line.startswith("COST UNKNOWN") for line in result.stdout.splitlines()) == 7


def test_check_rolls_subagents_into_their_parent_once(corpus):
    # incremental-subagents: the parent (turn-1) has no failed call, its subagent agent-a485154
    # one (the Read of a path that is not there, #5): the parent is over --max-errors 0 with 1
    result = runner.invoke(app, ["check", str(corpus / "claude/codemie/incremental-subagents"), "--max-errors", "0", "--json"])
    assert result.exit_code == 1
    verdict = json.loads(result.stdout)
    assert verdict["checked"] == 2  # parent and subagent are both read
    assert [(b["id"], b["errors"]) for b in verdict["over_budget"]] == [("e9fb405b-169f-40eb-9396-7e75076f045d", 1)]


def test_check_counts_no_refusal_as_an_error(corpus):
    # 1790946341220-*: the parent's dart test (#4) and its subagent's sed (#3) were both denied by
    # the user ("User denied tool execution"), nothing else failed: 0 errors, within --max-errors 0
    result = runner.invoke(app, ["check", str(corpus / "glue/constructed/1790946341220-77310-3q8w0zd"), "--max-errors", "0", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["over_budget"] == []


def test_list_prints_one_row_per_session(corpus):
    result = runner.invoke(app, ["list", str(corpus / "glue")])
    assert result.exit_code == 0, result.output
    for session_id in ("1789374063402-48211-1k2x9fq", "1790946341220-77310-3q8w0zd", "docs-example-legacy"):
        assert session_id in result.stdout


def test_list_has_a_title_column_and_fits_a_100_column_terminal(corpus):
    # COLUMNS=100: every line fits, the title column is there (cut with "…"), ids are their
    # unique prefixes, each of which `show` resolves to its session
    result = runner.invoke(app, ["list", str(corpus)], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert lines[0].split() == ["id", "title", "start", "agent", "outcome", "steps", "cost", "errors"]
    assert "019e1625-789" in result.stdout and "let's update" in result.stdout
    shown = runner.invoke(app, ["show", "019e1625-789", "-s", str(corpus), "--max-output", "0"])
    assert shown.exit_code == 0 and "let's update the defailt context" in shown.stdout, shown.output
    # piped with no COLUMNS: full ids, one row a line
    piped = runner.invoke(app, ["list", str(corpus)])
    assert "019e1625-789d-76c0-80ab-3724b5ddb799" in piped.stdout


def test_show_keeps_the_end_of_a_failed_commands_output():
    # tests/data/claude/-home-dev-verdicts c5…01 #3: pytest's output (Exit code 1, "F..", the
    # AssertionError, "1 failed, 2 passed in 0.02s"), cut to 30 characters: its end is kept
    log = Path(__file__).parent / "data/claude/-home-dev-verdicts/c5000000-0000-4000-8000-000000000001.jsonl"
    result = runner.invoke(app, ["show", str(log), "--max-output", "30"])
    assert result.exit_code == 0, result.output
    block = result.stdout.split("[Step 3 ", 1)[1].split("[Step 4 ", 1)[0]
    assert block.splitlines()[-2].strip().endswith("1 failed, 2 passed in 0.02s") and "more characters] …" in block
    # a successful output keeps its start: the Edit's at #4
    block = result.stdout.split("[Step 4 ", 1)[1].split("[Step 5 ", 1)[0]
    assert "The file /home/dev/verdicts/sr… [28 more characters]" in block


def test_show_last_takes_a_folder_as_list_does(corpus):
    # `show --last DIR` read DIR as a session to find and said "no dated session found"
    result = runner.invoke(app, ["show", "--last", str(corpus / "glue")])
    assert result.exit_code == 0, result.output
    # the newest Glue session: 1790946341220-… (2026-10-02), titled by its meta.json
    assert result.stdout.splitlines()[1].startswith("RetryPolicy maxDelay audit (glue, ")


def test_an_ambiguous_id_names_its_candidates(corpus):
    # 01a203f9 begins two Codex sessions (generated-0.47.0 and generated-0.169.0)
    result = runner.invoke(app, ["show", "01a203f9", "-s", str(corpus / "codex")])
    assert result.exit_code == 1
    assert "2 sessions with id '01a203f9': 01a203f9-ef3a-7a82-926c-a0d7af48527a (generated-0.169.0/" in result.stderr
    assert "; 01a203f9-e260-7c12-8a26-5ff02c66842f (generated-0.47.0/" in result.stderr and "give more of the id" in result.stderr


@pytest.mark.parametrize("command", [["export", "019e1625"], ["compare", "019e1625", "019e1695"]])
def test_an_out_ending_in_a_slash_is_a_folder_not_a_file(corpus, tmp_path, command):
    # `-o newdir/` names a folder: an error before any log is read, and no file named newdir
    result = runner.invoke(app, [*command, "-s", str(corpus / "codex"), "-o", f"{tmp_path}/newdir/"])
    assert result.exit_code == 2 and "names a folder; -o names the file to write" in result.output
    assert not (tmp_path / "newdir").exists()


def test_list_names_its_source_as_show_does(corpus):
    # `list DIR` and `list -s DIR` (as show, export and compare take -s) print the same table
    positional = runner.invoke(app, ["list", str(corpus / "codex")], env={"COLUMNS": "100"})
    named = runner.invoke(app, ["list", "-s", str(corpus / "codex")], env={"COLUMNS": "100"})
    assert positional.exit_code == named.exit_code == 0 and positional.stdout == named.stdout
    assert "019e1625" in named.stdout
