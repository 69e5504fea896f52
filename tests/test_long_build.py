"""Issue 20: a long session's build holds what it must and no more (its memory is measured by
`tests/benchmark.py --huge LOG`, never asserted here). What a build that reads, spools and
writes a long session piece by piece must still get right: every step on its pages exactly
once, the figures the whole-session reading gives, and a site no larger than 1.5 times its log."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from gen_long_session import FAIL_EVERY, PROMPT_EVERY, write_long_claude_session

from replay_site.pipeline import stages as site
from replay_site.pipeline import source_passes, spool
from replay_site.discover import discover, pick_readers
from replay_site.figures.summary import summarize
from replay_site.load import load_session
from replay_site.readers import registry

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


def _pass_one(source, tmp_path, monkeypatch, streamed: bool):
    """Pass 1 of one source (streamed, or read whole as when its reader cannot stream) and
    what it spooled, as comparable values."""
    folder = tmp_path / ("streamed" if streamed else "whole")
    folder.mkdir(exist_ok=True)
    with monkeypatch.context() as patched:
        if not streamed:
            patched.setattr(source_passes, "stream_source", lambda *_: None)
        read = source_passes.read_and_summarize((0, source), site.BuildOptions(incremental=False), str(folder))
    pages = [(repr(head), repr(whole), [repr(page) for page in pages]) for head, whole, pages in spool.read(read.spooled)]
    return [summary.to_json() for summary in read.summaries], [repr(problem) for problem in read.problems], read.states, pages


def _streamed_sources(root, tmp_path):
    sources = list(discover([root], pick_readers("claude"), []))
    return [source for source in sources if source_passes._streamed(
        source, site.BuildOptions(incremental=False), tmp_path / "probe.pickle", {}) is not None]


def test_a_streamed_pass_one_spools_and_summarizes_what_the_whole_reading_does(tmp_path, monkeypatch):
    """Issue 20: a Claude Code session without subagents is read, priced, redacted, summarized
    and spooled a page at a time (load.StreamedRead); every figure, the digest and every
    spooled step must equal what reading it whole gives. Of the fixture sources, the 11
    single files without subagents stream (a7…0e, a single file too, holds inline sidechains: read whole)."""
    streamed = _streamed_sources(Path(__file__).parent / "data" / "claude", tmp_path)
    assert len(streamed) == 11
    for source in streamed:
        assert _pass_one(source, tmp_path, monkeypatch, True) == _pass_one(source, tmp_path, monkeypatch, False), source.path


def test_a_streamed_pass_one_of_real_logs_is_the_whole_readings(corpus, tmp_path, monkeypatch):
    streamed = _streamed_sources(corpus, tmp_path)
    assert streamed
    for source in streamed:
        assert _pass_one(source, tmp_path, monkeypatch, True) == _pass_one(source, tmp_path, monkeypatch, False), source.path


def test_a_source_with_subagents_is_not_streamed():
    """Their adoption links the main session's steps to children read later: read whole."""
    (source,) = [source for source in discover([Path(__file__).parent / "data" / "claude"], pick_readers("claude"), [])
                 if source.related][:1]
    assert registry()["claude"].stream(source) is None
