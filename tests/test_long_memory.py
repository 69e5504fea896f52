"""Issue 20: what a build holds of a long streamed session must not grow with its length past
what the pages need. Checked by structure on generated sessions of N and 4N steps (never by
time): the peak of the first look at the lines, the bytes pass 1 still holds per step once
every step is seen (tracemalloc, at the summary), and the ledger in the digest that every
page-range worker reads back."""
from __future__ import annotations

import gc
import tracemalloc

import pytest
from gen_long_session import write_long_claude_session

from replay_site.pipeline import stages as site
from replay_site.pipeline import source_passes, spool
from replay_site.discover import discover, pick_readers
from replay_site.pages import views_audit
from replay_site.readers import registry

STEPS = 1_000
# What pass 1 keeps of each step until the summary (its figures, the ledger's and the lists'
# entries): ~870 bytes a step while each StepFigures held its own calls' figures and model
# name and the step's error text; ~690 with them shared; ~300 with the figures in packed rows
# (figures/step_columns.py) instead of a StepFigures, Usage, Cost and datetime of each step.
HELD_PER_STEP = 400


def _held_at_summary(steps: int, tmp_path, monkeypatch) -> tuple[int, object]:
    """Pass 1 of a generated session of `steps` steps: the bytes allocated since it started
    and still held when its summary is made, and its spool file."""
    log = write_long_claude_session(tmp_path / f"{steps}" / "-home-dev-long" / "long.jsonl", steps)
    (source,) = discover([log], pick_readers("claude"), [])
    held: list[int] = []
    summarize = source_passes.summarize

    def measured(*args, **kwargs):
        gc.collect()  # and empties the free lists, which tracemalloc counts as held
        held.append(tracemalloc.get_traced_memory()[0])
        return summarize(*args, **kwargs)

    monkeypatch.setattr(source_passes, "summarize", measured)
    tracemalloc.start()
    try:
        read = source_passes._streamed(source, site.BuildOptions(incremental=False), tmp_path / f"{steps}.pickle", {})
    finally:
        tracemalloc.stop()
    assert read is not None and held  # streamed, not read whole
    return held[0], read.spooled


@pytest.mark.slow
def test_pass_one_holds_a_few_hundred_bytes_a_step_of_a_long_session(tmp_path, monkeypatch):
    _held_at_summary(100, tmp_path, monkeypatch)  # the scanner's catalogue and the price table loaded first
    short, _ = _held_at_summary(STEPS, tmp_path, monkeypatch)
    long, _ = _held_at_summary(4 * STEPS, tmp_path, monkeypatch)
    per_step = (long - short) / (3 * STEPS)
    assert per_step < HELD_PER_STEP, per_step


# The peak of a long log's first look at its lines (the conversation's shape), per step: ~1,460
# bytes when a straight conversation got an index of every line to find branches it has none
# of, ~1,080 with an object of each line's few keys (held after it: ~1,020), ~315 with the
# shape in columns (shape.py; held after it: ~170, 20,000 steps).
OUTLINE_PEAK_PER_STEP = 450


@pytest.mark.slow
def test_the_first_look_at_a_long_logs_lines_holds_little_beside_their_outlines(tmp_path):
    """Sessions of 2,000 and 8,000 steps (logs over reader.WHOLE_LOG, so outlined)."""
    peaks = []
    for steps in (2_000, 8_000):
        log = write_long_claude_session(tmp_path / f"{steps}" / "-home-dev-long" / "long.jsonl", steps)
        (source,) = discover([log], pick_readers("claude"), [])
        tracemalloc.start()
        try:
            stream = registry()["claude"].stream(source)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert stream is not None
        del stream
    per_step = (peaks[1] - peaks[0]) / 6_000
    assert per_step < OUTLINE_PEAK_PER_STEP, per_step


def test_the_digest_keeps_of_the_ledger_only_what_its_first_page_shows(tmp_path, monkeypatch):
    """Every range of a long session's pages reads the digest: its ledger is the first rows
    (LEDGER_ROWS, here 40) with each file's first ROW_STEPS steps and last, however many
    files and commands the session touched and ran (the generator writes a new file every
    ~5 steps and runs a command every ~4)."""
    monkeypatch.setattr(views_audit, "LEDGER_ROWS", 40)
    monkeypatch.setattr(views_audit, "ROW_STEPS", 3)
    log = write_long_claude_session(tmp_path / "-home-dev-long" / "long.jsonl", 800)
    (source,) = discover([log], pick_readers("claude"), [])
    read = source_passes._streamed(source, site.BuildOptions(incremental=False), tmp_path / "long.pickle", {})
    ((_, whole, _),) = list(spool.read(read.spooled))
    ledger = whole.ledger
    assert ledger.file_count > 40 and ledger.command_count > 40
    assert len(ledger.files) == len(ledger.commands) == len(ledger.touches) == 40
    assert max(ledger.touches) > 4 and all(len(touch.steps) <= 4 for touch in ledger.files)
