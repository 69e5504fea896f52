"""Discovery: one walk, one head read per file, regular files only, recognised by content."""
from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from replay_site.discover import DiscoveryError, candidate_suffixes, discover, find_sources, pick_readers
from replay_site.readers import files, registry


def test_every_candidate_head_is_read_once(data, monkeypatch):
    # Before the single pass each reader walked the tree and re-read heads (several opens per
    # file); now discovery reads each .jsonl/.json file's head once, whatever the number of readers.
    from replay_site import discover as discovery

    heads: list[Path] = []
    real = discovery.read_head

    def counting(path, named=False):
        heads.append(Path(path))
        return real(path, named)

    monkeypatch.setattr(discovery, "read_head", counting)
    problems = []
    sources = discover([data], pick_readers("auto"), problems)
    suffixes = candidate_suffixes(pick_readers("auto"))  # the logs' and those readers declare (Aider's history)
    candidates = sorted(p for p in data.rglob("*") if p.name.endswith(suffixes) and p.is_file())
    assert sorted(heads) == candidates  # each exactly once, nothing else
    # Every format with fixtures (tests/data/<format>/) has sessions found there, but those whose
    # only fixture is a database's SQL (built by their own tests).
    logs = {folder.name for folder in data.iterdir() if folder.name in registry()
            and any(path.suffix != ".sql" for path in folder.rglob("*") if path.is_file())}
    assert {s.format for s in sources} == logs


def test_gptme_log_copied_under_another_name_with_bom_and_crlf_is_recognised(data, tmp_path):
    # A crashed conversation.jsonl saved as notes.log: BOM, CRLF line ends, last line torn.
    original = (data / "gptme/native-notes/conversation.jsonl").read_bytes().splitlines()
    copy = tmp_path / "notes.log"
    copy.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(original) + b"\r\n" + original[-1][:40])
    problems = []
    [source] = discover([copy], pick_readers("auto"), problems)
    assert source.format == "gptme"
    from replay_site.readers.gptme.reader import READER

    [session] = READER.read(source)
    [as_written] = READER.read(discover([data / "gptme/native-notes"], pick_readers("gptme"), [])[0])
    # The BOM does not cost the first line: the bad lines are the fixture's own plus the torn one.
    bad = [p.line for p in session.problems if p.kind == "bad_line"]
    assert bad == [p.line for p in as_written.problems if p.kind == "bad_line"] + [len(original) + 1]
    assert len(session.steps) == len(as_written.steps)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_and_device_symlinks_are_skipped_with_a_warning_and_never_block(data, tmp_path):
    shutil.copytree(data / "codex", tmp_path / "codex")
    os.mkfifo(tmp_path / "pipe.jsonl")
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    (tmp_path / "random.jsonl").symlink_to("/dev/urandom")
    problems, result = [], {}
    worker = threading.Thread(target=lambda: result.setdefault("sources", discover([tmp_path], pick_readers("auto"), problems)), daemon=True)
    worker.start()
    worker.join(20)
    assert not worker.is_alive(), "discovery blocked on a special file"
    assert result["sources"]
    warned = {p.path: p.message for p in problems}
    assert warned["pipe.jsonl"].startswith("a FIFO")
    assert warned["zero.jsonl"].startswith("a device") and warned["random.jsonl"].startswith("a device")
    with pytest.raises(DiscoveryError, match="a FIFO"):
        discover([tmp_path / "pipe.jsonl"], pick_readers("auto"), [])
    with pytest.raises(files.NotRegularFile):
        files.open_regular(tmp_path / "pipe.jsonl")


def test_unreadable_log_says_permission_denied(data, tmp_path, monkeypatch):
    # Tests may run as root, who reads every file: the denial is simulated at the one open.
    log = tmp_path / "rollout.jsonl"
    shutil.copy(data / "codex/simplified.jsonl", log)
    shutil.copy(data / "glue/legacy-mixed.jsonl", tmp_path / "ok.jsonl")
    real = files.open_regular

    def denying(path):
        if Path(path).name == "rollout.jsonl":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(files, "open_regular", denying)
    with pytest.raises(DiscoveryError, match=r"rollout.jsonl: permission denied$"):
        discover([log], pick_readers("auto"), [])
    problems = []
    discover([tmp_path], pick_readers("auto"), problems)
    assert [(p.path, p.message) for p in problems] == [("rollout.jsonl", "permission denied")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_beside_a_log_never_blocks_reading(data, tmp_path):
    # A gptme conversation whose config.toml is a FIFO: reading the session goes on.
    folder = tmp_path / "native-notes"
    shutil.copytree(data / "gptme/native-notes", folder)
    (folder / "config.toml").unlink()
    os.mkfifo(folder / "config.toml")
    from replay_site.readers.gptme.reader import READER

    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("sessions", READER.read(find_sources(folder, [READER], [])[0])), daemon=True)
    worker.start()
    worker.join(20)
    assert not worker.is_alive(), "reading blocked on a FIFO"
    [session] = result["sessions"]
    assert session.steps  # the FIFO is passed over (not a regular file), the log still reads


def test_an_unreadable_folder_is_reported(data, tmp_path, monkeypatch):
    # os.walk's listing of one folder fails (simulated: tests may run as root): a warning names it.
    shutil.copytree(data / "glue", tmp_path / "glue")
    (tmp_path / "locked").mkdir()
    real = os.scandir

    def denying(path="."):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", denying)
    problems = []
    assert discover([tmp_path], pick_readers("auto"), problems)
    assert [(p.path, p.message) for p in problems] == [("locked", "folder not searched: permission denied")]


def test_a_plugin_reader_with_only_find_still_takes_part(data):
    # Third-party readers written before detect/group offer find(root); discovery asks it, and
    # claims resolve in order as for the built-ins.
    from replay_site.readers import SessionSource

    class FindOnly:
        name, label = "toy", "Toy"

        def default_dirs(self):
            return []

        def find(self, root):
            return [SessionSource("toy", root / "legacy-mixed.jsonl", root)]

    sources = discover([data / "glue"], [FindOnly(), *pick_readers("auto")], [])
    assert [(s.format, s.path.name) for s in sources] == [("glue", "1791000000000-4242-ex1"), ("glue", "1791000500000-5151-fork"),
                                                          ("glue", "1791000900000-7070-running"), ("toy", "legacy-mixed.jsonl")]


def test_a_file_two_readers_could_read_is_a_warning_naming_both(tmp_path):
    # A Pi header followed by a Copilot-shaped event: neither format writes this, both detect it.
    log = tmp_path / "both.jsonl"
    log.write_text('{"type": "session", "version": 3, "id": "x", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}\n')
    readers = pick_readers("auto")
    problems: list = []
    find_sources(tmp_path, readers, problems)
    assert not [p for p in problems if "recognise this file" in p.message]  # one claimant: no warning

    class Twin:
        name, label = "twin", "Twin"
        detect = staticmethod(lambda path, head: True)
        group = staticmethod(lambda found, root: [])
        default_dirs = staticmethod(list)

    problems = []
    find_sources(tmp_path, [*readers, Twin()], problems)
    (warning,) = [p for p in problems if "recognise this file" in p.message]
    assert warning.message.startswith("both the pi and the twin readers recognise this file") and warning.path == "both.jsonl"
