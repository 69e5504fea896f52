"""The archive in an object store (`--archive s3://BUCKET/PREFIX`, archive/s3.py) against a real
S3 server: moto's standalone server started as its own process on a free local port, reached
the way boto3 reaches any endpoint (AWS_ENDPOINT_URL). A site built from a copy of tests/data
whose logs are then deleted is built again from the bucket, the same sessions with their
notice; `archive list`, `verify` and `restore` work against it; a damaged object is one
warning and no page; a build never puts an object outside its prefix."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

boto3 = pytest.importorskip("boto3")
pytest.importorskip("moto.server")

from replay_site.archive.folder import Archive, object_name  # noqa: E402
from replay_site.archive.s3 import S3Backend  # noqa: E402
from replay_site.pipeline import stages as site  # noqa: E402

from conftest import DATA, REPO  # noqa: E402

BUCKET = "archive-test"
LEGACY = "glue/legacy-mixed.jsonl"  # a one-file session: one archive entry


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """A moto S3 server process on a free port, and the environment boto3 reads it from."""
    port = _free_port()
    log = open(tmp_path_factory.mktemp("moto") / "server.log", "wb")
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=log, stderr=subprocess.STDOUT)
    settings = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "test",
                "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1"}
    with pytest.MonkeyPatch.context() as environment:
        for name, value in settings.items():
            environment.setenv(name, value)
        try:
            deadline = time.monotonic() + 60
            while True:
                assert server.poll() is None, "moto's server ended before it listened"
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "moto's server did not listen within 60 s"
                    time.sleep(0.1)
            boto3.client("s3").create_bucket(Bucket=BUCKET)
            yield settings
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()


def sessions(out: Path) -> dict[str, dict]:
    document = json.loads((out / "sessions.json").read_text(encoding="utf-8"))
    return {s["page"]: s for s in document["sessions"]}


def keys(prefix: str = "") -> list[str]:
    pages = boto3.client("s3").get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
    return [item["Key"] for page in pages for item in page.get("Contents", [])]


def cli(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from replay_site.cli.entry import main; main()", *arguments],
                          capture_output=True, text=True, cwd=REPO, env=os.environ.copy())


def test_sessions_of_deleted_logs_come_back_from_the_bucket(s3, tmp_path):
    url = f"s3://{BUCKET}/one/"
    logs, out = tmp_path / "logs", tmp_path / "site"
    shutil.copytree(DATA, logs)
    site.build([logs], out, site.BuildOptions(archive=url))
    before = sessions(out)
    stored = keys("one/")
    assert stored and all(key.startswith(("one/objects/", "one/logs/")) for key in stored)
    assert keys() == stored  # nothing outside the prefix, and no folder of the archive on disk
    assert not (tmp_path / "archive").exists()
    for path in logs.rglob("*"):
        if path.is_file():
            path.unlink()
    site.build([logs], out, site.BuildOptions(archive=url))
    after = sessions(out)
    assert sorted(after) == sorted(before)
    for page, summary in after.items():
        assert summary["kept_since"] and {**summary, "kept_since": None} == before[page]
    # --full renders them again from the bucket
    site.build([logs], out, site.BuildOptions(archive=url, incremental=False, title="From the bucket"))
    for page in after:
        html = (out / page).read_text(encoding="utf-8")
        assert "From the bucket" in html and "kept in the archive since" in html

    # the archive command against the same bucket
    listed = cli("archive", "list", "--archive", url)
    assert listed.returncode == 0, listed.stderr
    assert str(logs / LEGACY) in listed.stdout and "gone from disk" in listed.stdout
    verified = cli("archive", "verify", "--archive", url)
    assert verified.returncode == 0 and " 0 damaged" in verified.stdout, verified.stdout + verified.stderr
    back = tmp_path / "back"
    restored = cli("archive", "restore", "--archive", url, "--to", str(back))
    assert restored.returncode == 0, restored.stderr
    for original in DATA.rglob("*.jsonl"):
        copy = back / (logs / original.relative_to(DATA)).relative_to("/")
        if copy.exists():
            assert copy.read_bytes() == original.read_bytes(), original
    assert (back / (logs / LEGACY).relative_to("/")).read_bytes() == (DATA / LEGACY).read_bytes()


def test_a_damaged_object_is_one_warning_and_no_page(s3, tmp_path):
    url = f"s3://{BUCKET}/two"
    logs, out = tmp_path / "logs", tmp_path / "site"
    shutil.copytree(DATA / "glue", logs / "glue")
    site.build([logs], out, site.BuildOptions(archive=url))
    page = next(p for p, s in sessions(out).items() if s["source"] == LEGACY)
    shutil.rmtree(logs)
    logs.mkdir()
    archive = Archive(S3Backend(url))
    entry = archive.entry(str(logs / LEGACY))
    key = "two/" + object_name(entry.chunks[0].object)
    client = boto3.client("s3")
    packed = client.get_object(Bucket=BUCKET, Key=key)["Body"].read()
    client.put_object(Bucket=BUCKET, Key=key, Body=packed[:-5] + b"xxxxx")
    result = site.build([logs], out, site.BuildOptions(archive=url))
    warnings = [p for p in result.problems if "damaged" in p.message]
    assert len(warnings) == 1 and entry.key[:12] in warnings[0].message
    assert page not in sessions(out) and not (out / page).exists()
    verified = cli("archive", "verify", "--archive", url)
    assert verified.returncode == 1 and "1 damaged" in verified.stdout


def test_a_bucket_that_cannot_be_reached_is_an_error_before_any_build(s3, tmp_path):
    run = cli("build", str(DATA / "glue"), "-o", str(tmp_path / "site"), "--archive", "s3://no-such-bucket/x")
    assert run.returncode != 0 and "no-such-bucket" in run.stderr and "cannot be reached" in run.stderr
    assert not (tmp_path / "site" / "index.html").exists()
