"""What the tests of the readers share: a source found as a build finds it."""
from __future__ import annotations

import sqlite3
from pathlib import Path

from replay_site.discover import find_sources
from replay_site.model import Session
from replay_site.readers import SessionSource, registry
from replay_site.readers.files import read_head


def read_found(root: Path, format_name: str) -> tuple[SessionSource, list[Session]]:
    """The one source under `root` that every reader together finds, which must be
    `format_name`'s, and the sessions its reader reads from it."""
    (source,) = find_sources(root, list(registry().values()), [])
    assert source.format == format_name
    return source, registry()[format_name].read(source)


def check_folders(monkeypatch, format_name: str, default: list[Path], variable: str, value: str, moved: list[Path]) -> None:
    """The reader is registered, looks in `default` with none of its variables set, and in
    `moved` once `variable` (one it declares) is `value`."""
    reader = registry()[format_name]
    for name in reader.env_vars:
        monkeypatch.delenv(name, raising=False)
    assert reader.default_dirs() == default
    assert variable in reader.env_vars
    monkeypatch.setenv(variable, value)
    assert reader.default_dirs() == moved


def database_from(sql: Path, path: Path, schema: Path | None = None) -> Path:
    """A fixture database at `path`, built from its hand-written SQL (a database is not written
    by hand), after the `schema` it shares with other fixtures when it has one; its folders
    made as needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    if schema is not None:
        connection.executescript(schema.read_text())
    connection.executescript(sql.read_text())
    connection.commit()
    connection.close()
    return path


def every_session_numbered(root: Path, reader) -> None:
    """Whatever `reader` finds under `root` reads without raising, each session's steps numbered
    1, 2, … (what a mangled store must still give)."""
    for source in find_sources(root, [reader], []):
        for session in reader.read(source):
            for each in session.walk():
                assert [step.number for step in each.steps] == list(range(1, len(each.steps) + 1))


def mangle_database(path: Path, rng, rows_sql: str, mangle, spoil_sql: str) -> None:
    """Damage a fixture database as a crash or a foreign writer might: about half the rows
    `rows_sql` selects rewritten by `mangle(row)` (an UPDATE and its values), then `spoil_sql`."""
    connection = sqlite3.connect(path)
    for row in connection.execute(rows_sql).fetchall():
        if rng.random() < 0.5:
            connection.execute(*mangle(row))
    connection.execute(spoil_sql)
    connection.commit()
    connection.close()


def claimed_by_content(path: Path, copy: Path, format_name: str) -> SessionSource:
    """A store moved to `copy` (another name): found in its folder no more, but named on the
    command line recognised by its content, by `format_name`'s reader alone; its source."""
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_bytes(path.read_bytes())
    path.unlink()
    readers = registry()
    assert find_sources(path.parent, [readers[format_name]], []) == []
    (source,) = find_sources(copy, [readers[format_name]], [])
    head = read_head(copy, named=True)
    assert [name for name, reader in readers.items() if reader.detect(copy, head) is not None] == [format_name]
    return source
