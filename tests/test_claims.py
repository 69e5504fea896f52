"""A reader never takes another producer's log: every fixture log of every format is
recognised by one reader alone, and discovery warns, naming both, about a file two readers
would claim."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from replay_site.discover import discover, find_sources, pick_readers
from replay_site.readers import SessionSource, registry
from replay_site.readers.files import read_head

DATA = Path(__file__).parent / "data"


def test_every_fixture_is_claimed_by_exactly_one_reader():
    readers = registry()
    logs = sorted(path for path in DATA.rglob("*") if path.is_file() and path.suffix in (".jsonl", ".json", ".md", ".db"))
    recognised = {}
    for path in logs:
        head = read_head(path)
        names = [name for name, reader in readers.items() if reader.detect(path, head) is not None]
        assert len(names) <= 1, f"{path.relative_to(DATA)}: recognised by {names}"
        if names:
            recognised[path] = names[0]
            # each fixture lies in the folder of its format
            assert path.relative_to(DATA).parts[0] == names[0], f"{path.relative_to(DATA)} read as {names[0]}"
    # every reader has fixtures it recognises (Cursor's and Crush's stores are built from SQL by their own tests)
    assert set(recognised.values()) == set(readers) - {"cursor", "crush"}
    problems: list = []
    sources = discover([DATA], pick_readers("auto"), problems)
    held = Counter(path for source in sources for path in source.files)
    # every recognised log is read in one session source, never two; side files are read with theirs
    assert all(held[path] == 1 for path in recognised), [p for p in recognised if held[p] != 1]
    assert not [p for p in problems if "recognise this file" in p.message]


class Greedy:
    """A reader that takes every file, as a careless plugin might."""

    label = "Greedy"

    def __init__(self, name: str) -> None:
        self.name = name

    def default_dirs(self):
        return []

    def detect(self, path, head):
        return True

    def group(self, found, root):
        return [SessionSource(self.name, path, root) for path in sorted(found)]


def test_a_file_two_readers_recognise_is_a_warning_naming_both(tmp_path):
    log = tmp_path / "x.jsonl"
    log.write_text('{"type":"anything"}\n')
    problems: list = []
    [source] = find_sources(tmp_path, [Greedy("first"), Greedy("second")], problems)
    assert source.format == "first"
    assert [str(problem) for problem in problems] == \
        ["x.jsonl: both the first and the second readers recognise this file by its content; read as first"]
