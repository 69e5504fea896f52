"""One description of "the same file as last time" (store/file_state.py), kept by the build
cache, the site record and discovery's memory: what makes a file the same, and its compact
JSON form."""
from __future__ import annotations

import os

from replay_site.store.file_state import FOLDER, FileState, same_bytes, states_from_json, states_to_json


def test_a_touched_file_is_the_same_by_its_digest_and_an_edited_one_is_not(tmp_path):
    log = tmp_path / "a.jsonl"
    log.write_bytes(b'{"a": 1}\n')
    then = FileState.of(log).with_digest()
    os.utime(log, ns=(then.mtime_ns, then.mtime_ns + 10**9))
    touched = FileState.of(log)
    assert not touched.same_stat(then) and touched.digest == ""
    assert same_bytes(then, touched) and touched.digest == then.digest  # hashed, and kept for the record
    log.write_bytes(b'{"a": 2}\n')  # same size, other bytes
    assert not same_bytes(then, FileState.of(log))
    log.write_bytes(b'{"a": 22}\n')  # another size: no byte read
    edited = FileState.of(log)
    assert not same_bytes(then, edited) and edited.digest == ""


def test_the_same_stat_is_the_same_file_without_reading_it(tmp_path):
    log = tmp_path / "a.jsonl"
    log.write_bytes(b"x")
    then = FileState.of(log)
    then.digest = "recorded"
    now = FileState.of(log)
    assert same_bytes(then, now) and now.digest == "recorded"  # copied, not computed


def test_states_are_written_as_compact_lists_and_read_back(tmp_path):
    log = tmp_path / "a.jsonl"
    log.write_bytes(b"xyz")
    states = [FileState.of(log).with_digest(), FileState.of(tmp_path), FileState(str(tmp_path / "gone"), "missing")]
    written = states_to_json(states)
    assert written[0][:2] == [str(log), 3] and len(written[0]) == 5
    assert written[1:] == [[str(tmp_path), FOLDER], [str(tmp_path / "gone"), "missing"]]
    assert states_from_json(written) == states
