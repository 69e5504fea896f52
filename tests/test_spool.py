"""The spool keeps pass 1's sessions for pass 2: what comes back equals what went in, and a
session pickle cannot hold (absurdly deep data) makes pass 2 read the log again instead."""
from __future__ import annotations

from pathlib import Path

from replay_site import site, spool
from replay_site.discover import discover, pick_readers
from replay_site.model import Session, Step, ToolCall

DATA = Path(__file__).parent / "data"


def test_spooled_sessions_come_back_equal_and_the_file_is_removed(tmp_path):
    sources = discover([DATA], pick_readers("auto"), [])
    for index, source in enumerate(sources):
        sessions, _ = site.read_source(source, None)
        path = spool.write(sessions, tmp_path / f"{index}.pickle")
        assert path is not None
        assert spool.read(path) == sessions
        assert not Path(path).exists()


def test_data_too_deep_to_pickle_is_not_spooled(tmp_path):
    nested: dict = {}
    for _ in range(5000):
        nested = {"a": nested}
    session = Session("deep", "test", steps=[Step("assistant", tool_calls=[ToolCall("call", "tool", arguments=nested)])])
    assert spool.write([session], tmp_path / "deep.pickle") is None
    assert not (tmp_path / "deep.pickle").exists()
