"""Issue 20: what a build holds of a long streamed session must not grow with its length past
what the pages need. Checked by structure (never by time): the ledger in the digest that
every page-range worker reads back."""
from __future__ import annotations

from gen_long_session import write_long_claude_session

from replay_site.build import pipeline as site
from replay_site.build import source_passes, spool
from replay_site.discover import discover, pick_readers
from replay_site.pages import views_audit


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
