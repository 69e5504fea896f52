"""Sources and sites in object storage (fsspec): a local S3 (moto's standalone server, the
endpoint s3fs reads from AWS_ENDPOINT_URL) and fsspec's memory:// store. A site built from
s3:// into s3:// holds the very bytes of the same logs built from a folder into a folder;
objects are published pages first, then search files, then index.html and sessions.json,
then stale objects deleted; the build cache lives with the site, so a rebuild renders again
only the session whose log changed."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("s3fs")
pytest.importorskip("upath")

import fsspec
from moto.server import ThreadedMotoServer

from replay_site.pipeline import stages as pipeline
from replay_site.readers.files import location
from replay_site.store.objects import CACHE_OBJECT
from replay_site.store.publish import MANIFEST, PublishError

DATA = Path(__file__).parent / "data"
GENERATOR = Path(__file__).resolve().parents[1] / "generator"
GPTME_LOG = "gptme/markdown-hello/conversation.jsonl"


@pytest.fixture(scope="module")
def s3_endpoint():
    """A local S3, reached the way s3fs reaches any endpoint: from the environment."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    settings = {"AWS_ENDPOINT_URL": f"http://{host}:{port}", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                "AWS_DEFAULT_REGION": "us-east-1"}
    saved = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    yield settings
    server.stop()
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture
def bucket(s3_endpoint, request):
    """A fresh bucket holding tests/data under logs/."""
    fs = fsspec.filesystem("s3", skip_instance_cache=True)
    name = f"replay-{request.node.name.replace('_', '-')[:40]}-{time.time_ns() % 10**6}".lower()
    fs.mkdir(name)
    fs.put(str(DATA) + "/", f"{name}/logs/", recursive=True)
    return name


def objects(store: str) -> dict[str, bytes]:
    """Every object under `store` (a URL) but the build cache, by its relative name."""
    folder = location(store)
    base = folder.path.rstrip("/")
    found = folder.fs.find(base)
    return {name.removeprefix(base).lstrip("/"): folder.fs.cat_file(name) for name in found
            if not name.endswith(CACHE_OBJECT)}


def files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def replay_site(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    run = "import sys; from replay_site.cli.entry import main; sys.argv = ['replay-site', *sys.argv[1:]]; main()"
    result = subprocess.run([sys.executable, "-c", run, *args], env={**os.environ, **env, "PYTHONPATH": str(GENERATOR)},
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result


@pytest.mark.slow
def test_s3_in_and_out_writes_the_bytes_of_a_local_build(bucket, s3_endpoint, tmp_path):
    local = tmp_path / "local"
    pipeline.build([DATA], local, pipeline.BuildOptions(incremental=False))
    built = replay_site("build", f"s3://{bucket}/logs", "-o", f"s3://{bucket}/site", "-q", env=s3_endpoint)
    assert built.stdout.startswith("Built 108 sessions")  # tests/data: as the local build's sessions.json lists
    assert objects(f"s3://{bucket}/site") == files(local)


MORE = b'{"role": "user", "content": "one more", "timestamp": "2026-01-01T10:00:00"}\n'


@pytest.mark.slow
def test_a_rebuild_from_s3_renders_again_what_a_local_rebuild_does(bucket, s3_endpoint, tmp_path):
    """A line appended to one gptme log: its session's pages are rendered again, and those of
    the sessions whose neighbours' links or figures it moves (as a local rebuild finds them,
    by the pages it does not keep); the other pages' objects are not written again."""
    site = f"s3://{bucket}/site"
    replay_site("build", f"s3://{bucket}/logs", "-o", site, "-q", env=s3_endpoint)
    fs = fsspec.filesystem("s3", skip_instance_cache=True)
    before = {name: info["LastModified"] for name, info in fs.find(f"{bucket}/site/sessions", detail=True).items()}
    log = f"{bucket}/logs/{GPTME_LOG}"
    time.sleep(1.1)  # S3 times are in whole seconds
    fs.pipe_file(log, fs.cat_file(log) + MORE)
    replay_site("build", f"s3://{bucket}/logs", "-o", site, "-q", env=s3_endpoint)
    after = {name: info["LastModified"] for name, info in fs.find(f"{bucket}/site/sessions", detail=True).items()}
    rewritten = sorted(name.rsplit("/", 1)[1] for name in after if after[name] != before.get(name))

    shutil.copytree(DATA, tmp_path / "logs")
    pipeline.build([tmp_path / "logs"], tmp_path / "site", pipeline.BuildOptions())
    pages = tmp_path / "site" / "sessions"
    inodes = {path.name: path.stat().st_ino for path in pages.iterdir()}
    with (tmp_path / "logs" / GPTME_LOG).open("ab") as stream:
        stream.write(MORE)
    pipeline.build([tmp_path / "logs"], tmp_path / "site", pipeline.BuildOptions())
    rendered_locally = sorted(path.name for path in pages.iterdir() if inodes.get(path.name) != path.stat().st_ino)
    assert rewritten == rendered_locally
    assert "markdown-hello-3b69d957.html" in rewritten and len(rewritten) < len(after) // 2
    assert b"one more" in fs.cat_file(f"{bucket}/site/sessions/markdown-hello-3b69d957.html")


@pytest.fixture
def memory_logs():
    """tests/data in a fresh memory:// folder (fsspec's in-process store)."""
    fs = fsspec.filesystem("memory")
    root = f"/logs-{time.time_ns()}"
    for path in DATA.rglob("*"):
        if path.is_file():
            fs.pipe_file(f"{root}{'/' + path.relative_to(DATA).as_posix()}", path.read_bytes())
    yield fs, root
    fs.rm(root, recursive=True)


def test_objects_are_published_pages_first_then_search_then_index_then_deletions(memory_logs, monkeypatch):
    fs, root = memory_logs
    site = f"{root}-site"
    pipeline.build([location(f"memory://{root}")], location(f"memory://{site}"), pipeline.BuildOptions())
    previous = set(json.loads(fs.cat_file(f"{site}/{MANIFEST}")))
    fs.rm_file(f"{root}/{GPTME_LOG}")
    events: list[tuple[str, str]] = []
    put, remove = fs.pipe_file, fs.rm

    def record_put(path, data, **kwargs):
        events.append(("put", path.removeprefix(site + "/")))
        return put(path, data, **kwargs)

    def record_remove(paths, **kwargs):
        events.extend(("delete", path.removeprefix(site + "/")) for path in ([paths] if isinstance(paths, str) else paths))
        return remove(paths, **kwargs)

    monkeypatch.setattr(fs, "pipe_file", record_put)
    monkeypatch.setattr(fs, "rm", record_remove)
    pipeline.build([location(f"memory://{root}")], location(f"memory://{site}"), pipeline.BuildOptions(incremental=False))
    order = [name for kind, name in events if kind == "put"]

    def first(test) -> int:
        return next(i for i, name in enumerate(order) if test(name))

    def last(test) -> int:
        return max(i for i, name in enumerate(order) if test(name))

    # a session's own search shard (assets/search/<slug>.*) is one of its files, written with its pages
    site_search = ("assets/search/terms/", "assets/search-index.js")
    assert last(lambda n: n.startswith("sessions/")) < first(lambda n: n.startswith(site_search))
    assert last(lambda n: n.startswith(site_search)) < order.index("index.html") < order.index("sessions.json") < order.index(MANIFEST)
    deleted = [name for kind, name in events if kind == "delete"]
    # what the previous build wrote and this one did not: the session's page and shard, and
    # the word buckets only it filled
    assert set(deleted) == previous - set(json.loads(fs.cat_file(f"{site}/{MANIFEST}")))
    assert {"sessions/markdown-hello-3b69d957.html", "assets/search/markdown-hello-3b69d957.js"} < set(deleted)
    assert events.index(("delete", deleted[0])) > events.index(("put", MANIFEST))
    assert not any(fs.exists(f"{site}/{name}") for name in deleted)


def test_a_store_folder_holding_other_objects_is_refused_unless_forced(memory_logs):
    fs, root = memory_logs
    site = f"{root}-theirs"
    fs.pipe_file(f"{site}/report.pdf", b"someone else's")
    with pytest.raises(PublishError, match="not written by replay-site"):
        pipeline.build([location(f"memory://{root}")], location(f"memory://{site}"), pipeline.BuildOptions())
    assert fs.find(site) == [f"{site}/report.pdf"]  # nothing written
    result = pipeline.build([location(f"memory://{root}")], location(f"memory://{site}"), pipeline.BuildOptions(force=True))
    assert fs.cat_file(f"{site}/report.pdf") == b"someone else's"
    assert any("report.pdf" in str(problem) for problem in result.problems)


def test_a_file_url_is_a_local_folder(tmp_path):
    shutil.copytree(DATA / "gptme", tmp_path / "logs")
    assert location(f"file://{tmp_path}/logs") == tmp_path / "logs"
    assert isinstance(location("memory://x"), object) and not isinstance(location("memory://x"), Path)


@pytest.mark.slow
def test_a_cluster_reads_from_s3_and_writes_to_s3_itself(bucket, s3_endpoint, tmp_path):
    pytest.importorskip("distributed")
    from clustertools import local_cluster

    local = tmp_path / "local"
    pipeline.build([DATA], local, pipeline.BuildOptions(incremental=False))
    with local_cluster(2, tmp_path) as running:  # the workers inherit the endpoint from the environment
        replay_site("build", f"s3://{bucket}/logs", "-o", f"s3://{bucket}/site", "-q", "--scheduler", running.address,
                    env=s3_endpoint)
    assert objects(f"s3://{bucket}/site") == files(local)


def test_a_store_site_is_written_when_no_log_could_be_read(memory_logs, monkeypatch):
    """Every log failing leaves no session's search words to fetch from the store: the site
    (its index, and the account of the files it could not read) is written all the same."""
    from replay_site.readers import registry

    fs, root = memory_logs
    site = f"{root}-unreadable-site"

    def unreadable(source, *_args, **_kwargs):
        raise OSError(f"{source}: the store went away")

    monkeypatch.setattr(registry()["gptme"], "read", unreadable)
    result = pipeline.build([location(f"memory://{root}/gptme")], location(f"memory://{site}"), pipeline.BuildOptions())
    assert result.summaries == [] and result.problems and fs.exists(f"{site}/index.html")
