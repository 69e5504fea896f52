"""Compressed logs: read by their content (zstd `28 b5 2f fd`, gzip `1f 8b`), in discovery and in reading.

Each test compresses a plain fixture of tests/data with the library the reader uses and checks
that what is read from the compressed file is what is read from the plain one.
"""
from __future__ import annotations

import gzip
import shutil
from dataclasses import asdict
from pathlib import Path

import zstandard

from replay_site.discover import find_sources, pick_readers
from replay_site.figures.summary import summarize
from replay_site.readers import registry
from replay_site.readers.files import read_head

CODEX_DAY = Path("codex/sessions/2026/01/02")
CODEX_MAIN = "rollout-2026-01-02T10-00-00-0190a000-0000-7000-8000-000000000001.jsonl"
CODEX_CHILD = "rollout-2026-01-02T10-00-20-0190a000-0000-7000-8000-000000000002.jsonl"
# What differs by construction: where the log was found, and the page named after it.
PLACE = {"source", "page", "family"}


def zstd_frames(data: bytes, frames: int = 2) -> bytes:
    """`data` as `frames` concatenated zstd frames, split at a line end (Codex appends frames)."""
    lines = data.splitlines(keepends=True)
    cut = len(lines) // frames
    parts = [b"".join(lines[:cut]), b"".join(lines[cut:])] if frames == 2 else [data]
    return b"".join(zstandard.ZstdCompressor().compress(part) for part in parts)


def read_all(root: Path):
    problems: list = []
    sessions = []
    for source in find_sources(root, pick_readers("auto"), problems):
        for top in registry()[source.format].read(source):
            sessions.extend(top.walk())
    return sessions, problems


def figures(sessions) -> list[dict]:
    return [{k: v for k, v in asdict(summarize(s, "agent", "page", "family")).items() if k not in PLACE} for s in sessions]


def test_codex_zst_rollout_gives_the_same_figures_as_the_plain_file(data, tmp_path):
    plain, packed = tmp_path / "plain", tmp_path / "packed"
    shutil.copytree(data / CODEX_DAY, plain)
    shutil.copytree(data / CODEX_DAY, packed)
    for name in (CODEX_MAIN, CODEX_CHILD):
        # Both files of the family compressed, the main one as two frames (read across them).
        raw = (packed / name).read_bytes()
        (packed / f"{name}.zst").write_bytes(zstd_frames(raw, 2 if name == CODEX_MAIN else 1))
        (packed / name).unlink()
    assert (packed / f"{CODEX_MAIN}.zst").read_bytes()[:4] == b"\x28\xb5\x2f\xfd"
    expected, plain_problems = read_all(plain)
    found, problems = read_all(packed)
    # The fixture's family: the main session and its subagent, nested under it.
    assert [s.id[-1] for s in found] == ["1", "2"]
    assert figures(found) == figures(expected)
    assert len(found[0].steps) > 5  # the comparison compared something: the 30-line main file's steps
    assert [str(p) for p in problems] == [str(p) for p in plain_problems]


def test_plain_file_wins_over_its_compressed_copy_and_a_symlink_is_read_once(data, tmp_path):
    shutil.copytree(data / CODEX_DAY, tmp_path / "day")
    day = tmp_path / "day"
    (day / f"{CODEX_MAIN}.zst").write_bytes(zstd_frames((day / CODEX_MAIN).read_bytes()))
    (day / "link.jsonl").symlink_to(day / CODEX_CHILD)
    sessions, problems = read_all(day)
    # One family, two sessions (main + subagent): not the .zst copy again, not the link again.
    assert [s.id[-1] for s in sessions] == ["1", "2"]
    assert sessions[0].source == CODEX_MAIN
    assert sessions[1].source == CODEX_CHILD
    assert not [p for p in problems if "same session" in p.message]


def test_gzip_claude_logs_named_jsonl_are_read_by_content(data, tmp_path):
    """gzip streams under plain .jsonl names (the session and its subagents) are told by their
    magic bytes, not their names."""
    source = data / "claude/-home-dev-calc-demo"
    copy = tmp_path / source.name
    shutil.copytree(source, copy)
    packed = [path for path in sorted(copy.rglob("*.jsonl"))]
    for path in packed:
        path.write_bytes(gzip.compress(path.read_bytes()))
    assert packed and all(path.read_bytes()[:2] == b"\x1f\x8b" for path in packed)
    expected, _ = read_all(source)
    found, _ = read_all(copy)
    assert len(found) == len(expected) >= 2  # the session and its subagent
    assert figures(found) == figures(expected)


def test_a_cut_zstd_stream_keeps_its_lines_before_the_cut_and_says_where(data, tmp_path):
    raw = (data / CODEX_DAY / CODEX_MAIN).read_bytes()
    lines = raw.splitlines(keepends=True)
    # Frame 1 holds lines 1-20 whole; frame 2 (lines 21-30) is cut in its middle.
    first = zstandard.ZstdCompressor().compress(b"".join(lines[:20]))
    second = zstandard.ZstdCompressor().compress(b"".join(lines[20:]))
    target = tmp_path / f"{CODEX_MAIN}.zst"
    target.write_bytes(first + second[: len(second) // 2])
    sessions, problems = read_all(tmp_path)
    damaged = [p for p in sessions[0].problems if "zstd" in p.message]
    assert len(damaged) == 1 and "cut short" in damaged[0].message
    # The line the stream broke in: 21 or later (frame 2 may give some whole lines before its cut).
    assert damaged[0].line is not None and 21 <= damaged[0].line <= 31
    plain, _ = read_all(data / CODEX_DAY / CODEX_MAIN)
    assert sessions[0].title == plain[0].title  # the prompt, in the first frame


def test_head_of_a_compressed_file_is_its_decompressed_first_lines(data, tmp_path):
    raw = (data / CODEX_DAY / CODEX_CHILD).read_bytes()
    target = tmp_path / "x.jsonl.zst"
    target.write_bytes(zstd_frames(raw))
    head = read_head(target)
    assert head.complete and head.data == raw
    assert len(head.objects()) == 4  # the 4-line subagent rollout, every line whole


def test_a_log_named_twice_through_a_symlink_is_read_once(data, tmp_path):
    from replay_site.discover import discover
    shutil.copytree(data / CODEX_DAY, tmp_path / "day")
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "day" / CODEX_CHILD)
    sources = discover([tmp_path / "day", tmp_path / "link.jsonl"], pick_readers("auto"), [])
    assert [source.path.name for source in sources] == [CODEX_MAIN]  # the family; the link names its child again


def test_a_stream_that_expands_like_a_bomb_is_read_no_further(tmp_path, monkeypatch):
    from replay_site.readers import files
    from replay_site.readers.jsonl import iter_objects
    # Frame 1: 5 lines (about 5 kB); frame 2: 2,000 lines of 1,000 "a"s, a few hundred bytes compressed.
    # At most 10 times the file's size plus 5,000 bytes is read: frame 1 fits, frame 2 does not.
    monkeypatch.setattr(files, "MAX_EXPANSION", 10)
    monkeypatch.setattr(files, "EXPANSION_ALLOWANCE", 5000)
    line = b'{"a": "' + b"a" * 1000 + b'"}\n'
    first = b"".join(b'{"n": %d}\n' % n for n in range(5))
    target = tmp_path / "bomb.jsonl.zst"
    target.write_bytes(zstandard.ZstdCompressor().compress(first) + zstandard.ZstdCompressor(level=19).compress(line * 2000))
    problems: list = []
    read = list(iter_objects(target, problems))
    assert [obj for _, obj in read] == [{"n": n} for n in range(5)]
    assert [(p.message, p.line) for p in problems] == [("zstd stream expands past 10 times its size: the rest of the file is not read", 6)]


def test_a_symlink_beside_its_log_is_read_once_under_a_root_reached_through_a_symlink(data, tmp_path):
    """discover.py resolves only links when the root is its own real path; a root that is not
    (here a symlinked folder, found directly) has every path resolved, so the log and the link
    beside it are still one file."""
    from replay_site.discover import discover
    shutil.copytree(data / CODEX_DAY, tmp_path / "day")
    (tmp_path / "day" / "link.jsonl").symlink_to(tmp_path / "day" / CODEX_CHILD)
    (tmp_path / "alias").symlink_to(tmp_path / "day")
    found = find_sources(tmp_path / "alias", pick_readers("auto"), [])
    assert [source.path.name for source in found] == [CODEX_MAIN]
    assert sorted(path.name for path in found[0].files) == [CODEX_MAIN, CODEX_CHILD]
    # discover() resolves the root first: the same family, at its real path
    assert [source.path for source in discover([tmp_path / "alias"], pick_readers("auto"), [])] == [tmp_path / "day" / CODEX_MAIN]
