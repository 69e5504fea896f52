"""Every reader against mangled versions of the example logs: wrong types, missing fields,
torn files. A reader may warn, but must never raise (a raise would cost the user the whole
session: the build reports it and skips the source) and must never drop the file silently."""
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from replay_site.discover import discover, find_sources
from replay_site.readers import registry

DATA = Path(__file__).parent / "data"
ODD_VALUES = [None, 0, -1, 1e308, "", "x" * 3, [], {}, [1, "a"], {"a": {"b": None}}, True]


def mangle_object(value, rng: random.Random):
    """The same object with one field (at any depth) given a value of the wrong type."""
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value))
        copy = dict(value)
        copy[key] = mangle_object(value[key], rng) if rng.random() < 0.5 else rng.choice(ODD_VALUES)
        return copy
    if isinstance(value, list) and value:
        copy = list(value)
        index = rng.randrange(len(copy))
        copy[index] = mangle_object(copy[index], rng)
        return copy
    return rng.choice(ODD_VALUES)


def mangled_copies(path: Path, rng: random.Random, count: int):
    lines = path.read_text().splitlines()
    for _ in range(count):
        out = []
        for line in lines:
            try:
                value = json.loads(line)
            except ValueError:
                out.append(line)
                continue
            out.append(json.dumps(mangle_object(value, rng)) if rng.random() < 0.3 else line)
        cut = rng.randrange(1, max(2, len("\n".join(out))))
        yield "\n".join(out), "\n".join(out)[:cut]


@pytest.mark.parametrize("format_name", sorted(registry()))
def test_mangled_logs_never_make_a_reader_raise(format_name, tmp_path):
    rng = random.Random(f"replay-site/{format_name}")  # fixed seed: the same cases every run
    reader = registry()[format_name]
    originals = sorted(p for p in (DATA / format_name).rglob("*") if p.suffix in (".jsonl", ".json", ".md") and p.is_file())
    if not originals and any((DATA / format_name).rglob("*.sql")):
        pytest.skip(f"{format_name}'s fixture is a database built from SQL: tests/test_{format_name}.py mangles it")
    assert originals, f"tests/data/{format_name} holds no logs"
    cases = 0
    for original in originals:
        for variant, (mangled, torn) in enumerate(mangled_copies(original, rng, 6)):
            for label, text in (("mangled", mangled), ("torn", torn)):
                root = tmp_path / f"{label}-{variant}"
                shutil.rmtree(root, ignore_errors=True)
                shutil.copytree(DATA / format_name, root)
                (root / original.relative_to(DATA / format_name)).write_text(text)
                for source in discover([root], [reader], []) if _has_session(root, reader) else []:
                    sessions = reader.read(source)  # must not raise
                    for session in sessions:
                        for each in session.walk():
                            assert [s.number for s in each.steps] == list(range(1, len(each.steps) + 1))
                    cases += 1
    assert cases > 0


def _has_session(root: Path, reader) -> bool:
    """discover() refuses a root where nothing is recognisable any more (a mangled first line
    can make a file unrecognisable); that is a reported error, not a reader crash."""
    return any(True for _ in find_sources(root, [reader], []))


def test_unencodable_text_and_mixed_timestamps_are_settled_at_the_reader_boundary(tmp_path):
    # hostile-text.jsonl: a lone surrogate escape "\ud83d" in the assistant's text (orjson
    # refuses the line, the standard library reads it), "\\ud800" and "\\u0000" inside the
    # JSON-in-a-string output, a NUL in the cwd, and two lines (2 and 4) whose timestamps
    # have no offset among lines with "Z" / "+00:00".
    from replay_site.pipeline import stages as site

    [source] = discover([DATA / "codex/hostile-text.jsonl"], [registry()["codex"]], [])
    [session] = registry()["codex"].read(source)
    assert session.cwd == "/home/dev/na\u2400me"
    [user, call_step, answer] = session.steps
    assert call_step.tool_calls[0].output == "half \ufffd a surrogate and a NUL \u2400 here\n"
    assert answer.text == "It holds one lone surrogate \ufffd and a NUL \u2400."
    assert not session.problems  # nothing skipped
    # Naive times read as UTC: 09:00:01 is the user line, and every time compares.
    assert user.timestamp.isoformat() == "2026-02-01T09:00:01+00:00"
    assert all(step.timestamp.tzinfo for step in session.steps)
    assert session.duration_s == 4.0  # 09:00:00 meta .. 09:00:04 answer
    out = tmp_path / "site"
    site.build([DATA / "codex/hostile-text.jsonl"], out, site.BuildOptions())
    page = next(p for p in (out).rglob("*.html") if "0190b000" in p.name)
    assert "\u2400" in page.read_text(encoding="utf-8")


def test_deep_nesting_does_not_exhaust_the_stack():
    from replay_site.model import Session, Step, ToolCall
    from replay_site.readers.fields import make_encodable

    nested: list = ["\x00"]
    for _ in range(50_000):
        nested = [nested]
    session = Session("deep", "codex", steps=[Step("assistant", tool_calls=[ToolCall("t", arguments={"a": nested})])])
    make_encodable(session)
    inner = session.steps[0].tool_calls[0].arguments["a"]
    for _ in range(50_000):
        inner = inner[0]
    assert inner == ["\u2400"]
