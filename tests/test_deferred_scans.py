"""A build reading in its own process goes on while the secret scanner's catalogue loads, as
if it found nothing in the texts it is asked about meanwhile (catalogue.deferred_scans), and
asks it before anything is published: a site never shows what the catalogue finds, and a
build whose assumption failed is made again, to the bytes of a full build."""
from __future__ import annotations

import json
import os
import select
import signal
from collections.abc import Iterator

import pytest
from publishtools import copy_logs, snapshot
from secret_set import SECRETS

from replay_site import catalogue
from replay_site.pipeline import stages as site

GITHUB = SECRETS["github-pat"]


@pytest.fixture
def loading(monkeypatch) -> Iterator[list[bool]]:
    """A real scanning process (catalogue.start_scanner), seen by this process as still
    loading until the test says otherwise (the list's item): it may load faster than a test runs."""
    monkeypatch.setattr(catalogue, "_PROCESS", None)
    catalogue.start_scanner()
    process = catalogue._PROCESS
    done = [False]
    real = process.loaded
    monkeypatch.setattr(process, "loaded", lambda wait: real(wait) if wait or done[0] else False)
    yield done
    process.stop()
    catalogue._PROCESS = None


@pytest.fixture
def builds(monkeypatch) -> list[int]:
    """One item per attempt of pipeline.build at a site."""
    attempts: list[int] = []
    original = site._build

    def counting(*args, **kwargs):
        attempts.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(site, "_build", counting)
    return attempts


def test_texts_are_put_off_only_while_the_catalogue_loads_and_inside_deferred_scans(loading):
    secret = f"token {GITHUB}".encode()
    assert catalogue.scan(secret)  # outside deferred_scans: scanned at once
    with catalogue.deferred_scans():
        assert catalogue.scan(secret) == []
        with pytest.raises(catalogue.FoundLater):
            catalogue.confirm_deferred()
        assert catalogue.scan(b"nothing secret here") == []
        catalogue.confirm_deferred()  # found nothing: no error
        loading[0] = True
        assert catalogue.scan(secret)  # loaded: scanned at once, by the process
        catalogue.confirm_deferred()


def test_texts_past_the_limit_wait_for_the_catalogue(loading, monkeypatch):
    monkeypatch.setattr(catalogue, "DEFER_AT_MOST", 10)
    with catalogue.deferred_scans():
        assert catalogue.scan(f"token {GITHUB}".encode())


def test_the_process_finds_what_this_process_finds():
    """What redaction reads of a finding is the same, scanned by the process or here."""
    text = f"export GITHUB_TOKEN={GITHUB} and a password=hunter2-hunter2".encode()
    here = catalogue._visible_findings(text)
    process = catalogue.ScanningProcess()
    try:
        there = process.ask("scan", text)
    finally:
        process.stop()
    assert here and [(f.rule_id, f.location, f.secret, f.is_base64_encoded) for f in here] == [tuple(f) for f in there]


def test_a_long_text_is_scanned_here_and_the_process_ended(loading, monkeypatch):
    """Not held by both processes at once: a 300 MB tool output's memory counts twice."""
    monkeypatch.setattr(catalogue, "SCANNED_HERE_FROM", 100)
    process = catalogue._PROCESS
    text = f"token {GITHUB}".encode().ljust(100)
    with catalogue.deferred_scans():
        assert catalogue.scan(text)
    assert catalogue._PROCESS is None and process.pid == 0


def test_the_process_holds_no_pipe_of_the_build(monkeypatch):
    """A pipe made before the scanning process (a program's own child process, talked to
    through pipes) sees its end when that program closes its side, the process alive."""
    reading, writing = os.pipe()
    monkeypatch.setattr(catalogue, "_PROCESS", None)
    catalogue.start_scanner()
    try:
        os.close(writing)
        assert select.select([reading], [], [], 5)[0] and os.read(reading, 1) == b""  # the end, not a wait
    finally:
        os.close(reading)
        catalogue._PROCESS.stop()


def test_a_process_gone_leaves_the_scanning_to_this_one(loading):
    os.kill(catalogue._PROCESS.pid, signal.SIGKILL)
    with catalogue.deferred_scans():
        assert catalogue.scan(f"token {GITHUB}".encode()) == []
        with pytest.raises(catalogue.FoundLater):
            catalogue.confirm_deferred()
    assert catalogue.scan(f"token {GITHUB}".encode())


def append_turn(logs, text: str) -> None:
    log = logs / "gptme" / "markdown-hello" / "conversation.jsonl"
    line = {"role": "user", "content": text, "timestamp": "2026-11-23T09:00:00"}
    log.write_text(log.read_text() + json.dumps(line) + "\n")


@pytest.mark.parametrize("text, attempts", [("one more question", 1), (f"here is my token {GITHUB} for the deploy", 2)])
def test_a_rebuild_during_the_loading_gives_the_site_of_a_full_build(tmp_path, loading, builds, text, attempts):
    logs = copy_logs(tmp_path / "logs")
    out, full = tmp_path / "site", tmp_path / "full"
    site.build([logs], out, site.BuildOptions())
    append_turn(logs, text)
    builds.clear()
    site.build([logs], out, site.BuildOptions())
    assert len(builds) == attempts  # the catalogue found the token in a text put off: made again
    assert all(GITHUB.encode() not in data for data in snapshot(out).values() if isinstance(data, bytes))
    loading[0] = True
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert snapshot(out) == snapshot(full)


def test_strict_never_puts_a_text_off(tmp_path, loading, monkeypatch):
    """--strict stops on the strings redaction found unreviewed: all must be found first."""
    deferred_at_confirm: list[object] = []
    monkeypatch.setattr(site, "confirm_deferred", lambda: deferred_at_confirm.append(catalogue._DEFERRED))
    site.build([copy_logs(tmp_path / "logs")], tmp_path / "site", site.BuildOptions(strict=True))
    assert deferred_at_confirm == [None]
