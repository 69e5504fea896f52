"""Publishing: the output-folder rules, write errors, symlinks in the output, and what a
later build does with what a killed one left behind. (Kills themselves: test_kill.py.)"""
from __future__ import annotations

import errno
import os
import resource
import shutil
import signal
import sys
import tempfile
import traceback
import types
from pathlib import Path

import pytest
from publishtools import DATA, copy_logs, siblings, snapshot
from typer.testing import CliRunner

from replay_site.pipeline import stages as site
from replay_site.cli.app import app
from replay_site.store import publish, writer
from replay_site.runtime import system


@pytest.fixture
def logs(tmp_path) -> Path:
    return copy_logs(tmp_path / "logs")


@pytest.fixture
def old_site(logs, tmp_path) -> Path:
    out = tmp_path / "pub" / "site"
    site.build([logs], out, site.BuildOptions())
    return out


def build_cli(*args: str):
    return CliRunner().invoke(app, ["build", *args, "-q"])


def error_lines(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.strip()]


def assert_one_error(result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    lines = error_lines(result)
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0]


def test_a_rebuild_publishes_a_whole_new_site_and_leaves_nothing_beside_it(logs, old_site):
    shutil.rmtree(logs / "gptme" / "native-notes")
    before = snapshot(old_site)
    site.build([logs], old_site, site.BuildOptions(no_archive=True))  # the archive would keep its pages
    after = snapshot(old_site)
    assert len([p for p in after if p.startswith("sessions/") and p.endswith(".html")]) < \
        len([p for p in before if p.startswith("sessions/") and p.endswith(".html")])
    assert siblings(old_site) == []  # no staging or old-site folder left
    listed = publish.read_manifest(old_site)
    assert {rel for rel, value in after.items() if value is not None} == listed


def test_an_output_that_is_a_file_is_one_error_line(logs, tmp_path):
    target = tmp_path / "report.html"
    target.write_text("mine")
    assert_one_error(build_cli(str(logs), "-o", str(target)), "is a file")
    assert target.read_text() == "mine"


@pytest.mark.parametrize("where", ["same", "inside", "containing"])
def test_an_output_overlapping_a_source_is_refused(logs, where):
    out = {"same": logs / "glue", "inside": logs / "glue" / "site", "containing": logs}[where]
    before = snapshot(logs)
    assert_one_error(build_cli(str(logs / "glue"), "-o", str(out)), "overlaps the source")
    assert snapshot(logs) == before
    assert siblings(logs) == []


def test_a_folder_replay_site_did_not_write_is_refused_without_force_and_kept_with_it(logs, tmp_path):
    out = tmp_path / "docs"
    (out / "notes").mkdir(parents=True)
    (out / "CNAME").write_text("example.org\n")
    (out / "notes" / "todo.md").write_text("keep me\n")
    (out / "notes").chmod(0o750)
    os.utime(out / "notes", ns=(1_700_000_000_000_000_000,) * 2)
    mine = snapshot(out)
    assert_one_error(build_cli(str(logs), "-o", str(out)), "not written by replay-site", "--force")
    assert snapshot(out) == mine

    result = build_cli(str(logs), "-o", str(out), "--force")
    assert result.exit_code == 0, result.output
    assert (out / "index.html").is_file()
    assert {rel: value for rel, value in snapshot(out).items() if rel in mine} == mine
    assert siblings(out) == []
    notes = (out / "notes").stat()
    assert (notes.st_mode & 0o777, notes.st_mtime_ns) == (0o750, 1_700_000_000_000_000_000)  # the folder as it was

    # the user's files stay foreign: the next build needs --force again, and keeps them again
    assert_one_error(build_cli(str(logs), "-o", str(out)), "CNAME", "--force")
    shutil.rmtree(logs / "gptme")
    assert build_cli(str(logs), "-o", str(out), "--force").exit_code == 0
    assert {rel: value for rel, value in snapshot(out).items() if rel in mine} == mine
    assert (out / "CNAME").stat().st_nlink == 1  # the old site's link to it is gone, the file stays


def test_an_empty_folder_is_built_into(logs, tmp_path):
    out = tmp_path / "empty"
    out.mkdir()
    assert build_cli(str(logs), "-o", str(out)).exit_code == 0
    assert (out / "index.html").is_file()


def test_a_file_added_to_a_site_is_refused_and_never_deleted(logs, old_site):
    (old_site / "sessions" / "draft.txt").write_text("my draft")
    before = snapshot(old_site)
    assert_one_error(build_cli(str(logs), "-o", str(old_site)), "sessions/draft.txt")
    assert snapshot(old_site) == before
    assert build_cli(str(logs), "-o", str(old_site), "--force").exit_code == 0
    assert (old_site / "sessions" / "draft.txt").read_text() == "my draft"


def test_a_symlinked_folder_in_the_output_is_replaced_and_never_written_through(logs, old_site, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(old_site / "sessions", elsewhere)
    outside = snapshot(elsewhere)
    shutil.rmtree(old_site / "sessions")
    (old_site / "sessions").symlink_to(elsewhere, target_is_directory=True)
    assert_one_error(build_cli(str(logs), "-o", str(old_site)), "sessions")

    result = build_cli(str(logs), "-o", str(old_site), "--force", "--full")
    assert result.exit_code == 0, result.output
    assert snapshot(elsewhere) == outside  # nothing written, nothing removed outside the output
    assert (old_site / "sessions").is_dir() and not (old_site / "sessions").is_symlink()
    assert siblings(old_site) == []  # the symlink was replaced, not kept aside


def test_a_page_replaced_by_a_symlink_is_rendered_again_not_taken_over(logs, old_site, tmp_path):
    page = sorted((old_site / "sessions").glob("*.html"))[0]
    secret = tmp_path / "secret.html"
    secret.write_text("not for the site")
    expected = page.read_bytes()
    page.unlink()
    page.symlink_to(secret)
    site.build([logs], old_site, site.BuildOptions())  # listed in the manifest, so not foreign
    assert not page.is_symlink() and page.read_bytes() == expected
    assert secret.read_text() == "not for the site"


class FailingCreate:
    """The writer's file creation, failing the Nth file with `code` the way a full disk
    or a read-only mount fails a write."""

    def __init__(self, code: int, after: int):
        self.code, self.left, self.create = code, after, writer._create

    def __call__(self, target: str):
        self.left -= 1
        if self.left < 0:
            raise OSError(self.code, os.strerror(self.code))
        return self.create(target)


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "No space left"), (errno.EROFS, "Read-only"),
                                         (errno.EACCES, "Permission denied")])
def test_a_write_error_is_one_line_and_leaves_the_old_site(logs, old_site, monkeypatch, code, words):
    before = snapshot(old_site)
    monkeypatch.setattr(writer, "_create", FailingCreate(code, after=3))
    assert_one_error(build_cli(str(logs), "-o", str(old_site), "--full", "-j", "1"), words)
    assert snapshot(old_site) == before
    assert siblings(old_site) == []  # the staging folder and its temp files are gone


def test_an_output_whose_folder_cannot_be_created_is_one_line(logs, tmp_path, monkeypatch):
    out = tmp_path / "ro" / "site"
    monkeypatch.setattr(writer, "tempfile", types.SimpleNamespace(
        mkdtemp=lambda **_: (_ for _ in ()).throw(OSError(errno.EROFS, os.strerror(errno.EROFS)))))
    assert_one_error(build_cli(str(logs), "-o", str(out)), "Read-only")
    assert list((tmp_path / "ro").iterdir()) == []


def test_a_read_only_output_folder_is_one_line(logs, old_site, tmp_path):
    """A real unwritable folder: as root (who may write anywhere) the build runs as nobody."""
    public = Path(tempfile.mkdtemp(prefix="replay-site-ro-"))  # /tmp: a folder nobody may enter
    try:
        public.chmod(0o755)
        out = public / "site"
        shutil.copytree(old_site, out)
        out.chmod(0o555)
        before = snapshot(out)
        lines = build_in_child(["build", str(logs), "-o", str(out), "-q"], tmp_path / "stderr.txt",
                               prepare=_become_nobody, status=2)
        assert len(lines) == 1 and lines[0].startswith("error: ") and "not writable" in lines[0], lines
        assert snapshot(out) == before
    finally:
        shutil.rmtree(public)


def _become_nobody() -> None:
    if os.geteuid() == 0:
        CliRunner().invoke(app, ["build", "--help"])  # load what click imports lazily while we still may read it
        os.setgid(65534)
        os.setuid(65534)


def test_the_next_build_clears_what_a_killed_build_left_beside_the_site(logs, old_site):
    parent = old_site.parent
    unfinished = parent / ".site.replay-site-new-aaaa"  # killed while building
    (unfinished / "sessions").mkdir(parents=True)
    (unfinished / publish.PARTIAL).touch()
    (unfinished / "sessions" / "half.html").write_text("<p>half")
    (unfinished / "sessions" / ".tmp-x").write_text("")
    old = parent / ".site.replay-site-new-bbbb"  # killed while removing the previous site
    (old / "sessions").mkdir(parents=True)
    (old / "sessions" / "gone.html").write_text("old page")
    (old / "notes.txt").write_text("the user's")
    (old / publish.MANIFEST).write_text('["sessions/gone.html", ".replay-site-manifest.json"]')
    unrelated = parent / "site-backup"
    unrelated.mkdir()

    result = site.build([logs], old_site, site.BuildOptions())
    assert not unfinished.exists()
    # only what replay-site did not write stays, with the manifest that says so
    assert sorted(p.name for p in old.rglob("*")) == [publish.MANIFEST, "notes.txt"]
    assert unrelated.is_dir()
    assert any("notes.txt" in str(problem) and "left in place" in str(problem) for problem in result.problems)


def test_a_site_moved_aside_by_an_interrupted_swap_is_put_back(old_site):
    before = snapshot(old_site)
    aside = old_site.parent / ".site.replay-site-old-cccc"
    os.rename(old_site, aside)  # the two-rename swap killed between its renames
    newer = old_site.parent / ".site.replay-site-new-cccc"
    newer.mkdir()
    (newer / publish.MANIFEST).write_text('["index.html", ".replay-site-manifest.json"]')
    (newer / "index.html").write_text("new")
    publish.recover(old_site)
    assert snapshot(old_site) == before
    assert siblings(old_site) == []


def test_a_staging_folder_in_use_is_left_alone(old_site):
    busy = old_site.parent / ".site.replay-site-new-dddd"
    busy.mkdir()
    (busy / publish.PARTIAL).touch()
    descriptor = publish.lock(busy)
    try:
        publish.recover(old_site)
        assert (busy / publish.PARTIAL).exists()
    finally:
        publish.unlock(descriptor)


def test_the_workers_are_forked_before_the_staging_folder_is_locked(tmp_path, monkeypatch):
    """A worker forked after the writer locked its staging folder would hold the lock as long
    as it lives, and a worker still dying after its build was killed would keep the folder
    "in use" to the next build's recovery: the build starts its executor first."""
    entered = []
    real_executor, real_writer = site.executor_for, site.site_writer

    def executor(*args, **kwargs):
        entered.append("executor")
        return real_executor(*args, **kwargs)

    def writer(*args, **kwargs):
        entered.append("writer")
        return real_writer(*args, **kwargs)

    monkeypatch.setattr(site, "executor_for", executor)
    monkeypatch.setattr(site, "site_writer", writer)
    site.build([DATA / "glue"], tmp_path / "site", site.BuildOptions(incremental=False))
    assert entered == ["executor", "writer"]


def test_without_renameat2_two_renames_publish_the_site(logs, old_site, monkeypatch, tmp_path):
    monkeypatch.setattr(system, "rename_exchange", lambda: None)
    shutil.rmtree(logs / "gptme" / "native-notes")
    site.build([logs], old_site, site.BuildOptions())
    full = tmp_path / "full"
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert snapshot(old_site) == snapshot(full)
    assert siblings(old_site) == []


def test_unchanged_pages_are_linked_not_copied(logs, old_site):
    page = sorted((old_site / "sessions").glob("*.html"))[0]
    inode = page.stat().st_ino
    site.build([logs], old_site, site.BuildOptions())
    assert page.stat().st_ino == inode  # the same file, now in the new site
    assert page.stat().st_nlink == 1  # and no longer in the removed old one


def test_site_wide_files_holding_the_same_bytes_are_linked_the_changed_written(logs, old_site):
    """After one appended turn most site-wide files come out as they were (the assets, the
    search index's word buckets): those are the old site's files, the others new ones."""
    inodes = {rel: (old_site / rel).stat().st_ino for rel in ("assets/style.css", "sessions.json", "index.html")}
    buckets = {path: path.stat().st_ino for path in (old_site / "assets" / "search" / "terms").glob("*.js")}
    log = logs / "gptme" / "markdown-hello" / "conversation.jsonl"
    log.write_text(log.read_text() + '{"role": "user", "content": "one more question", "timestamp": "2026-11-23T09:00:00"}\n')
    site.build([logs], old_site, site.BuildOptions())
    assert (old_site / "assets/style.css").stat().st_ino == inodes["assets/style.css"]
    assert (old_site / "sessions.json").stat().st_ino != inodes["sessions.json"]  # its figures changed
    assert (old_site / "index.html").stat().st_ino != inodes["index.html"]
    assert any(path.stat().st_ino == inode for path, inode in buckets.items())
    full = old_site.parent / "full"
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert snapshot(old_site) == snapshot(full)


def test_a_site_wide_file_changed_by_hand_or_replaced_by_a_symlink_is_written_again(logs, old_site, tmp_path):
    elsewhere = tmp_path / "elsewhere.css"
    elsewhere.write_bytes((old_site / "assets" / "style.css").read_bytes())
    (old_site / "assets" / "style.css").unlink()
    (old_site / "assets" / "style.css").symlink_to(elsewhere)
    edited = old_site / "assets" / "app.js"
    edited.write_bytes(edited.read_bytes().replace(b"function", b"funktion", 1))
    site.build([logs], old_site, site.BuildOptions())
    assert not (old_site / "assets" / "style.css").is_symlink()
    assert (old_site / "assets" / "style.css").read_bytes() == elsewhere.read_bytes()
    assert b"funktion" not in edited.read_bytes()
    full = tmp_path / "full"
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert snapshot(old_site) == snapshot(full)


def test_a_leftover_old_folder_alone_is_not_taken_for_the_site(tmp_path):
    """Only the two halves of one cut swap (same suffix) bring a site back."""
    out = tmp_path / "site"
    leftover = tmp_path / ".site.replay-site-old-eeee"
    leftover.mkdir()
    (leftover / publish.MANIFEST).write_text("[]")
    (leftover / "notes.txt").write_text("the user's")
    publish.recover(out)
    assert not out.exists()
    assert (leftover / "notes.txt").read_text() == "the user's"


def test_a_failed_second_rename_puts_the_old_site_back(logs, old_site, monkeypatch):
    monkeypatch.setattr(system, "rename_exchange", lambda: None)
    before = snapshot(old_site)
    real_rename = os.rename

    def failing_rename(source, target):
        if ".replay-site-new-" in str(source):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real_rename(source, target)

    monkeypatch.setattr(os, "rename", failing_rename)
    assert_one_error(build_cli(str(logs), "-o", str(old_site), "--full"), "cannot publish")
    monkeypatch.setattr(os, "rename", real_rename)
    assert snapshot(old_site) == before
    assert siblings(old_site) == []


def build_in_child(arguments: list[str], errors: Path, prepare, status: int) -> list[str]:
    """Run the command line in a forked child after `prepare()`; its exit status must be
    `status`. Returns the child's non-blank stderr lines."""
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            sys.stderr = open(errors, "w", buffering=1)  # noqa: SIM115 - the child ends with os._exit
            prepare()
            app(arguments, prog_name="replay-site")
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == status, errors.read_text()
    return [line for line in errors.read_text().splitlines() if line.strip()]


def _limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))


def test_a_file_size_limit_mid_write_is_one_line_and_leaves_nothing(logs, old_site, tmp_path):
    """A real failing write (RLIMIT_FSIZE, like a disk filling up during a file), in a child."""
    before = snapshot(old_site)
    lines = build_in_child(["build", str(logs), "-o", str(old_site), "-q", "--full", "-j", "1"],
                           tmp_path / "stderr.txt", prepare=_limit_file_size, status=2)
    assert len(lines) == 1 and lines[0].startswith("error: ") and "File too large" in lines[0], lines
    assert snapshot(old_site) == before
    assert siblings(old_site) == []


def test_a_site_put_back_by_recovery_is_checked_like_any_other(logs, old_site):
    """Recovery runs before the output-folder rules, so a site it puts back is not built
    over without them."""
    (old_site / "notes.txt").write_text("the user's")
    aside = old_site.parent / ".site.replay-site-old-ffff"
    os.rename(old_site, aside)
    (old_site.parent / ".site.replay-site-new-ffff").mkdir()
    with pytest.raises(publish.PublishError, match="notes.txt"):
        site.build([logs], old_site, site.BuildOptions())
    assert (old_site / "notes.txt").read_text() == "the user's"
    assert siblings(old_site) == []


def test_a_file_of_yours_where_the_new_site_writes_stays_beside_it_and_is_reported(logs, tmp_path):
    out = tmp_path / "docs"
    out.mkdir()
    (out / "index.html").write_text("my own front page")
    result = site.build([logs], out, site.BuildOptions(force=True))
    assert (out / "index.html").read_text() != "my own front page"  # the site needs that name
    kept = [p for p in out.parent.glob(".docs.replay-site-*/index.html")]
    assert len(kept) == 1 and kept[0].read_text() == "my own front page"  # never deleted
    assert [str(p) for p in result.problems if "left in place" in str(p)] == [f"{kept[0]}: not written by replay-site, so left in place"]


def test_a_long_text_is_written_a_slice_at_a_time_as_the_same_bytes(tmp_path, monkeypatch):
    # store.writer._TEXT_SLICE: a long side file is encoded a slice at a time, not held twice;
    # characters of several bytes fall on the slices' edges.
    from replay_site.store import writer

    monkeypatch.setattr(writer, "_TEXT_SLICE", 5)
    text = "héllo wörld 😀 \n" * 7
    site = writer.FolderWriter(tmp_path)
    site.write("sessions/s/outputs/1-1.txt", text)
    site.write("short.txt", "é")
    assert (tmp_path / "sessions" / "s" / "outputs" / "1-1.txt").read_bytes() == text.encode()
    assert (tmp_path / "short.txt").read_bytes() == "é".encode()
