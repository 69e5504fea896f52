"""Incremental rebuilds: unchanged logs are not read again, unchanged pages not rewritten,
and the site comes out exactly as a full build would. A build reads each log once."""
from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
from benchmark_corpus import claude_corpus, claude_turn

from replay_site.pipeline import stages as site
from replay_site.pipeline import source_passes
from replay_site.costs import table
from replay_site.pages.render import Renderer
from conftest import copy_as_another

DATA = Path(__file__).parent / "data"


def glue_and_gptme_logs(folder: Path) -> Path:
    """A copy of the Glue and gptme test sessions to change."""
    shutil.copytree(DATA / "glue", folder / "glue")
    shutil.copytree(DATA / "gptme", folder / "gptme")
    return folder


@pytest.fixture
def logs(tmp_path) -> Path:
    return glue_and_gptme_logs(tmp_path / "logs")


def calls_of(monkeypatch, owner, name: str, label) -> list[str]:
    """`label` of the first argument of each call of `owner.name`, in order, by wrapping it."""
    seen: list[str] = []
    original = getattr(owner, name)

    def counting(first, *args, **kwargs):
        seen.append(label(first))
        return original(first, *args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return seen


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The sources read, in order (both passes), by wrapping the one reading function."""
    return calls_of(monkeypatch, source_passes, "read_source", lambda source: source.rel)


@pytest.fixture
def renders(monkeypatch) -> list[str]:
    """The sessions rendered, by page slug."""
    seen: list[str] = []
    original = Renderer.session_pages

    def counting(self, whole, pages, nav, *args, **kwargs):
        seen.append(nav.slug)
        return original(self, whole, pages, nav, *args, **kwargs)

    monkeypatch.setattr(Renderer, "session_pages", counting)
    return seen


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_build_reads_each_log_once(logs, tmp_path, reads, renders):
    site.build([logs], tmp_path / "site", site.BuildOptions())
    # 8 sources: glue ex1 (a session and its subagent: 2 pages), the glue fork, legacy-mixed,
    # the running glue session, gptme legacy-forms (the conversation and its branch: 2 pages),
    # markdown-hello, native-notes and undo-edit: 10 pages
    assert sorted(reads) == sorted(set(reads)) and len(reads) == 8
    assert len(renders) == 10 == len(set(renders))


def test_a_rebuild_of_unchanged_logs_reads_nothing_and_changes_nothing(logs, tmp_path, reads, renders):
    out = tmp_path / "site"
    site.build([logs], out, site.BuildOptions())
    first_reads, first = len(reads), snapshot(out)
    assert first_reads > 0
    renders.clear()
    pages = {p: p.stat().st_mtime_ns for p in (out / "sessions").glob("*.html")}
    site.build([logs], out, site.BuildOptions())
    assert len(reads) == first_reads  # no source read again, in either pass
    assert renders == []
    assert snapshot(out) == first
    assert {p: p.stat().st_mtime_ns for p in pages} == pages  # not even rewritten


def test_a_touched_but_unchanged_log_is_neither_read_nor_rendered(logs, tmp_path, reads, renders):
    out = tmp_path / "site"
    site.build([logs], out, site.BuildOptions())
    first = snapshot(out)
    reads.clear()
    renders.clear()
    index_written = (out / "index.html").stat().st_mtime_ns
    for log in logs.rglob("*.jsonl"):
        stat = log.stat()
        os.utime(log, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    site.build([logs], out, site.BuildOptions())
    assert reads == [] and renders == []  # the content digest decided, not the mtime
    assert snapshot(out) == first
    assert (out / "index.html").stat().st_mtime_ns == index_written  # nor the site-wide files
    reads.clear()
    site.build([logs], out, site.BuildOptions())
    assert reads == []  # and the new mtimes were remembered


def test_a_changed_log_is_read_again_and_the_site_equals_a_full_build(logs, tmp_path, reads, renders):
    out, full = tmp_path / "site", tmp_path / "full"
    site.build([logs], out, site.BuildOptions())
    before = snapshot(out)
    reads.clear()
    renders.clear()
    log = logs / "gptme" / "markdown-hello" / "conversation.jsonl"
    log.write_text(log.read_text() + '{"role": "user", "content": "one more question", "timestamp": "2026-11-23T09:00:00"}\n')
    site.build([logs], out, site.BuildOptions())
    assert set(reads) == {"gptme/markdown-hello/conversation.jsonl"}
    assert len(renders) == 1  # that session's page only (its neighbours' links and figures are the same)
    changed = {name for name, data in snapshot(out).items() if before.get(name) != data}
    session_files = {name for name in changed if name.startswith(("sessions/", "assets/search/")) and "/terms/" not in name}
    assert len({name.rsplit("/", 1)[1].split(".")[0] for name in session_files}) == 1, session_files
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert snapshot(out) == snapshot(full)


def test_neighbours_of_a_new_session_are_rendered_again(logs, tmp_path, reads):
    out, full = tmp_path / "site", tmp_path / "full"
    site.build([logs], out, site.BuildOptions())
    copy_as_another(DATA / "glue" / "1791000000000-4242-ex1", logs / "glue" / "copy-of-ex1")
    reads.clear()
    site.build([logs], out, site.BuildOptions())
    # pass 1 reads only the new source (once: pass 2 takes it from the spool) and the
    # sources whose pages' prev/next changed
    assert reads.count("glue/copy-of-ex1") == 1
    assert len(set(reads)) < 6
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert snapshot(out) == snapshot(full)


def test_settings_and_missing_pages_force_rendering(logs, tmp_path, reads):
    out = tmp_path / "site"
    site.build([logs], out, site.BuildOptions())
    reads.clear()
    site.build([logs], out, site.BuildOptions(title="Another title"))  # shapes every page
    # every source is read again: 8 sources (the glue session folder holds 2 pages: it and its
    # subagent; the gptme legacy-forms folder 2: it and its branch)
    assert len(set(reads)) == 8 == len(list((out / "sessions").glob("*.html"))) - 2
    reads.clear()
    victim = next((out / "sessions").glob("*.html"))
    victim.unlink()
    site.build([logs], out, site.BuildOptions(title="Another title"))
    assert victim.exists() and len(reads) == 1


def test_discovery_reads_only_the_heads_of_changed_files(logs, tmp_path, monkeypatch):
    """The readers' answers for a file of the same stat are remembered (store.detections.DetectionMemory)."""
    from replay_site import discover

    heads = calls_of(monkeypatch, discover, "read_head", lambda path: path.name)
    out, full = tmp_path / "site", tmp_path / "full"
    site.build([logs], out, site.BuildOptions())
    assert len(heads) == len(list(logs.rglob("*.json*")))  # every candidate once
    heads.clear()
    log = logs / "gptme" / "markdown-hello" / "conversation.jsonl"
    log.write_text(log.read_text() + '{"role": "user", "content": "one more question", "timestamp": "2026-11-23T09:00:00"}\n')
    site.build([logs], out, site.BuildOptions())
    assert heads == ["conversation.jsonl"]
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert snapshot(out) == snapshot(full)


def test_an_appended_turn_priced_from_the_price_memo_gives_the_site_of_a_full_build(tmp_path, monkeypatch):
    """The rebuild after one appended Claude Code turn prices it from the price memo alone
    (the table refuses to load, as in a fresh process that never imports genai-prices), and
    its site is byte for byte the one a full build with the table makes."""
    logs, out, full = tmp_path / "logs", tmp_path / "site", tmp_path / "full"
    claude_corpus(logs, 3, 1, 6)
    site.build([logs], out, site.BuildOptions())
    victim = min(path for path in logs.rglob("*.jsonl") if "subagents" not in path.parts)
    with victim.open("a") as stream:
        stream.write(claude_turn(random.Random(5), victim))
    table.resolve.cache_clear()
    table._memo.cache_clear()  # as a new process: only the memo file

    def refuse():
        raise AssertionError("the price table was loaded for models the memo has")

    with monkeypatch.context() as patched:
        patched.setattr(table, "load_price_table", refuse)
        site.build([logs], out, site.BuildOptions())
    table.resolve.cache_clear()
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert snapshot(out) == snapshot(full)
    assert b"$" in (out / "index.html").read_bytes()  # costs were there to compare
