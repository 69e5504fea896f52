"""The formats table of README.md and docs/reference/formats.md: generated from the readers
(docs/scripts/formats_table.py), so a reader added, moved or renamed leaves it stale, and
this test fails until the table is written again."""
from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

from replay_site.readers import registry

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("formats_table", ROOT / "docs" / "scripts" / "formats_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


formats_table = _script()


def rows(page: Path) -> dict[str, str]:
    """The table's rows by their `--format` name."""
    return {match[1]: match[0] for match in re.finditer(r"^\| [^|]+ \| `([a-z0-9_-]+)` \|.*$", page.read_text(encoding="utf-8"), re.M)}


def test_both_tables_are_current():
    assert formats_table.stale() == [], "run python docs/scripts/formats_table.py"


@pytest.mark.parametrize("page", formats_table.PAGES, ids=lambda page: page.name)
def test_every_reader_has_its_row_with_the_folders_it_declares(page):
    listed = rows(page)
    assert set(registry()) <= set(listed)
    for name, reader in registry().items():
        assert f"| {reader.label} |" in listed[name]
        for variable in reader.env_vars:
            if variable != "HOME":
                assert f"`${variable}`" in listed[name], (name, variable)  # where each variable moves its folders
    assert "`~/.codex/sessions`, `~/.codex/archived_sessions`; `$CODEX_HOME`: `$CODEX_HOME/sessions`" in listed["codex"]
    # the readers being written elsewhere: a marked row each until they are registered
    for pending in ("openhands", "crush", "hermes", "droid", "amp"):
        if pending not in registry():
            assert "the lead checks this row on merge" in listed[pending]


def test_the_table_is_made_without_leaving_a_trace_in_the_environment():
    before, cwd = dict(os.environ), os.getcwd()
    formats_table.table()
    assert dict(os.environ) == before and os.getcwd() == cwd


def test_a_reader_without_an_entry_or_an_entry_without_a_reader_stops_the_table(monkeypatch):
    described = formats_table.entries()
    monkeypatch.setattr(formats_table, "entries", lambda: {name: value for name, value in described.items() if name != "pi"})
    with pytest.raises(SystemExit, match="no `<!-- format: pi -->` entry"):
        formats_table.table()
    monkeypatch.setattr(formats_table, "entries", lambda: {**described, "nobody": ("Nobody: nothing.", False)})
    with pytest.raises(SystemExit, match="`nobody` is no reader"):
        formats_table.table()
    monkeypatch.setattr(formats_table, "entries", lambda: {**described, "pi": (described["pi"][0], True)})
    with pytest.raises(SystemExit, match="`pi` is registered now"):
        formats_table.table()
