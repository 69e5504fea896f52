"""The Claude Code reader keeps only the shape of the lines (shape.py: a few columns) of a log
larger than WHOLE_LOG and reads a line whole again only to build its step (jsonl.objects_again),
so that a long log is never in memory parsed whole: the shape read without the lines must tell
the conversation's shape exactly as with them, and give the same sessions as a log kept whole."""
from __future__ import annotations

import json
from pathlib import Path

from replay_site.readers.claude import reader
from replay_site.readers.claude.dag import abandoned_lines
from replay_site.readers.claude.shape import shape_of
from replay_site.readers.claude.sidechains import split_sidechains
from replay_site.readers.files import BOM
from replay_site.readers.jsonl import LONG_LINE, iter_objects

DATA = Path(__file__).parent / "data" / "claude"


def check_outlines_tell_the_same_shape(path: Path) -> None:
    rows = list(iter_objects(path, []))
    whole, light = shape_of(path, rows, keep=True), shape_of(path, rows, keep=False)
    assert list(light.numbers) == [number for number, _ in rows]
    main, inline = split_sidechains(whole)
    light_main, light_inline = split_sidechains(light)
    assert list(light_main.numbers) == list(main.numbers), path
    assert {key: list(group.numbers) for key, group in light_inline.items()} == \
        {key: list(group.numbers) for key, group in inline.items()}, path
    for group, light_group in ((main, light_main), *((inline[key], light_inline[key]) for key in inline)):
        # the lines a branch is found from are read again when the shape has no objects
        assert abandoned_lines(light_group) == abandoned_lines(group), path
    assert list(light.lines()) == rows, path


def test_outlines_of_the_test_logs_tell_the_same_shape_and_read_back_whole():
    logs = sorted(DATA.rglob("*.jsonl"))
    assert len(logs) > 10
    for path in logs:
        check_outlines_tell_the_same_shape(path)


def test_outlines_of_the_real_logs_tell_the_same_shape(corpus):
    logs = sorted((corpus / "claude").rglob("*.jsonl"))
    assert logs
    for path in logs:
        check_outlines_tell_the_same_shape(path)


def check_outlines_give_the_same_sessions(root: Path, monkeypatch) -> None:
    found = {path: sniffed for path in sorted(root.rglob("*.jsonl*")) if (sniffed := reader.sniff(path))}
    sources = list(reader.READER.group(found, root))
    assert len(sources) > 5
    whole = [reader.READER.read(source) for source in sources]
    monkeypatch.setattr(reader, "WHOLE_LOG", -1)  # every log is read as outlines, then again
    assert [reader.READER.read(source) for source in sources] == whole


def test_the_test_logs_read_as_outlines_give_the_sessions_they_give_kept_whole(monkeypatch):
    check_outlines_give_the_same_sessions(DATA, monkeypatch)


def test_the_real_logs_read_as_outlines_give_the_sessions_they_give_kept_whole(corpus, monkeypatch):
    check_outlines_give_the_same_sessions(corpus / "claude", monkeypatch)


def test_a_line_changed_or_gone_since_stands_as_its_type(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"type": "user", "uuid": "a", "message": {"content": "hi"}}\n\n'
                   '{"type": "assistant", "uuid": "b", "parentUuid": "a"}\n{"type": "user", "uuid": "c"}\n')
    light = shape_of(log, iter_objects(log, []), keep=False)
    assert list(light.numbers) == [1, 3, 4]
    log.write_text('{"type": "user", "uuid": "a", "message": {"content": "hi"}}\n\nnot json now\n')
    again = list(light.lines())
    assert again == [(1, {"type": "user", "uuid": "a", "message": {"content": "hi"}}), (3, {"type": "assistant"}), (4, {"type": "user"})]


def test_lines_of_kinds_the_reader_only_counts_are_not_read_again(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"type": "progress", "uuid": "p", "data": {"big": "output"}}\n{"type": "user", "uuid": "u", "message": {"content": "hi"}}\n')
    light = shape_of(log, iter_objects(log, []), keep=False)
    again = list(light.lines(unread_kinds={"progress"}))
    assert again == [(1, {"type": "progress"}), (2, {"type": "user", "uuid": "u", "message": {"content": "hi"}})]


def test_kept_lines_are_let_go_as_they_are_given(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"type": "user", "uuid": "a"}\n{"type": "user", "uuid": "b", "parentUuid": "a"}\n')
    whole = shape_of(log, iter_objects(log, []), keep=True)
    lines = whole.lines(let_go=True)
    assert next(lines) == (1, {"type": "user", "uuid": "a"})
    assert whole.objects == [None, {"type": "user", "uuid": "b", "parentUuid": "a"}]


def test_a_line_over_a_mebibyte_reads_as_a_short_one_does(tmp_path):
    # jsonl.LONG_LINE: a longer line is parsed from a view of it, not a stripped copy; the
    # whitespace around it (form feed and vertical tab too, as bytes.strip takes them) and the
    # first line's BOM still go, and a cut one is still reported as truncated.
    text = "x" * LONG_LINE
    log = tmp_path / "log.jsonl"
    log.write_bytes(BOM + b' \x0c{"type": "user", "text": "' + text.encode() + b'"}\x0b \r\n'
                    + b'\t{"type": "user", "text": "' + text.encode() + b'"\n')
    problems = []
    rows = list(iter_objects(log, problems, "log.jsonl"))
    assert rows == [(1, {"type": "user", "text": text})]
    assert [str(problem) for problem in problems] == ["log.jsonl:2: truncated line, skipped"]
    assert list(shape_of(log, rows, keep=False).lines()) == rows


def test_a_huge_line_read_as_it_is_parsed_is_the_line_parsed_whole(tmp_path, monkeypatch):
    # huge_lines.HugeLine, made small: a line of HUGE_LINE bytes or more is read a chunk at a
    # time, its long strings decoded alone (escapes, long runs of backslashes, non-ASCII and a
    # surrogate pair cut across chunks; a key among them), the rest parsed as a skeleton; a string written twice on the
    # line is one str; whitespace, the BOM and a cut line as for any line; lines after it read.
    from replay_site.readers import huge_lines, jsonl

    long = 'out "quoted" \\ back\\\\slash é 😀 \u2028 line\n' * 40
    lines = [{"type": "user", "text": long, "copy": long, "list": [long, 1, {long: [long, True]}], "n": 12345678901234567890,
              "runs": ("\\" * 100 + '"') * 3},
             {"type": "user", "lone": "x" * 200 + "\ud800", "n": 123456789012345678901234},
             {"type": "assistant", "short": "y"}]
    raw = [json.dumps(line, ensure_ascii=index == 1).encode() for index, line in enumerate(lines)]
    log = tmp_path / "log.jsonl"
    log.write_bytes(BOM + b" \x0c" + raw[0] + b"\x0b \r\n" + raw[1] + b"\n" + raw[0][:-300] + b"\n" + raw[2] + b"\n")
    whole_problems, huge_problems = [], []
    whole = list(iter_objects(log, whole_problems, "log.jsonl"))
    monkeypatch.setattr(jsonl, "HUGE_LINE", 64)
    monkeypatch.setattr(huge_lines, "LONG_STRING", 100)
    monkeypatch.setattr(huge_lines, "_CHUNK", 7)
    huge = list(iter_objects(log, huge_problems, "log.jsonl"))
    assert huge == whole and [number for number, _ in huge] == [1, 2, 4]
    assert repr(huge) == repr(whole)  # the integers too, exact or not as the whole line's parse gave them
    assert [str(problem) for problem in huge_problems] == [str(problem) for problem in whole_problems] \
        == ["log.jsonl:3: truncated line, skipped"]
    first = huge[0][1]
    assert first["text"] is first["copy"] is first["list"][0]
    assert list(shape_of(log, huge, keep=False).lines()) == whole
    assert list(shape_of(log, huge[2:], keep=False).lines()) == whole[2:]  # a huge line passed over unparsed
