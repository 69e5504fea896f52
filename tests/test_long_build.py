"""Issue 20: a long session's build holds what it must and no more (its memory is measured by
`tests/benchmark.py --huge LOG`, never asserted here). What a build that reads, spools and
writes a long session piece by piece must still get right: every step on its pages exactly
once, the figures the whole-session reading gives, and a site no larger than 1.5 times its log."""
from __future__ import annotations

import json
import re

import pytest
from gen_long_session import FAIL_EVERY, PROMPT_EVERY, write_long_claude_session

from replay_site.build import pipeline as site
from replay_site.figures.summary import summarize
from replay_site.load import load_session

STEPS = 30_000
STEP_ID = re.compile(r'<li class="step[^"]*" id="step-(\d+)"')


@pytest.mark.slow
def test_a_long_session_builds_every_step_once_with_the_whole_sessions_figures(tmp_path):
    log = write_long_claude_session(tmp_path / "logs" / "-home-dev-long" / "long.jsonl", STEPS)
    out = tmp_path / "site"
    result = site.build([log.parent], out, site.BuildOptions(incremental=False))
    (entry,) = json.loads((out / "sessions.json").read_text())["sessions"]

    shown = [int(number) for page in sorted((out / "sessions").rglob("*.html")) for number in STEP_ID.findall(page.read_text())]
    assert sorted(shown) == list(range(1, STEPS + 1))  # every step, each on one page only

    # By hand from the generator: a prompt step before every PROMPT_EVERY-th turn, the others
    # one assistant step each (its call answered on the next line), every FAIL_EVERY-th call failed.
    turns = STEPS - -(-STEPS // (PROMPT_EVERY + 1))
    assert (entry["steps"], entry["tool_calls"]) == (STEPS, turns)
    assert entry["errors"] == entry["failed_tool_calls"] == turns // FAIL_EVERY
    assert not result.problems

    whole = load_session(str(log), [])  # the same log read whole, as every command reads it
    expected = summarize(whole, "Claude Code", entry["page"], entry["family"]).to_json()
    assert entry == expected

    site_bytes = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    assert site_bytes <= 1.5 * log.stat().st_size, (site_bytes, log.stat().st_size)
