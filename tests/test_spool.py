"""The spool keeps pass 1's sessions for pass 2: what comes back equals what went in, a page
of steps at a time, and a session pickle cannot hold (absurdly deep data) makes pass 2 read
the log again instead."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from replay_site.pipeline import spool
from replay_site.discover import discover, pick_readers
from replay_site.load import ReadOptions, read_source
from replay_site.model import Session, Step, ToolCall
from replay_site.pages import paging

DATA = Path(__file__).parent / "data"


def test_spooled_sessions_come_back_equal_a_page_at_a_time_and_the_file_is_removed(tmp_path):
    sources = discover([DATA], pick_readers("auto"), [])
    for index, source in enumerate(sources):
        sessions, _ = read_source(source, ReadOptions())
        walked = [session for top in sessions for session in top.walk()]
        path = spool.write(((session, f"digest of {session.id}") for session in walked), tmp_path / f"{index}.pickle")
        assert path is not None
        back = [(head, whole, list(pages)) for head, whole, pages in spool.read(path)]
        assert len(back) == len(walked)
        for session, (head, whole, pages) in zip(walked, back):
            assert whole == f"digest of {session.id}"
            # by repr: a NaN reward (rlm/nonfinite) is never equal to itself
            assert repr(pages) == repr(paging.pages_of(session.steps))
            assert repr(replace(head, steps=session.steps, children=session.children)) == repr(session)
        assert not Path(path).exists()


def test_a_session_whose_pages_are_not_all_read_does_not_shift_the_next(tmp_path):
    long = Session("long", "test", steps=[Step("user", number=n, text=f"step {n}") for n in range(1, 2 * paging.PAGE_STEPS + 2)])
    short = Session("short", "test", steps=[Step("user", number=1, text="only")])
    path = spool.write([(long, 1), (short, 2)], tmp_path / "two.pickle")
    heads = []
    for head, whole, pages in spool.read(path):
        heads.append((head.id, whole, next(iter(pages))[0].text))  # the first page only
    assert heads == [("long", 1, "step 1"), ("short", 2, "only")]


def test_data_too_deep_to_pickle_is_not_spooled(tmp_path):
    nested: dict = {}
    for _ in range(5000):
        nested = {"a": nested}
    session = Session("deep", "test", steps=[Step("assistant", tool_calls=[ToolCall("call", "tool", arguments=nested)])])
    assert spool.write([(session, None)], tmp_path / "deep.pickle") is None
    assert not (tmp_path / "deep.pickle").exists()


def test_a_reader_can_spool_pages_before_its_session_is_whole(tmp_path):
    writer = spool.SpoolWriter(tmp_path / "stream.pickle")
    writer.page([Step("user", number=1, text="one")])
    writer.page([Step("user", number=2, text="two")])
    writer.session(Session("streamed", "test"), "figures folded as the steps came")
    writer.session(Session("empty", "test"), None)
    back = [(head.id, whole, [[step.text for step in page] for page in pages]) for head, whole, pages in spool.read(writer.close())]
    assert back == [("streamed", "figures folded as the steps came", [["one"], ["two"]]), ("empty", None, [[]])]
