"""`build --atif`: each session's ATIF trajectory beside its page (sessions/<slug>.atif.json),
linked from its header, valid by the `atif` package's models of the published schema, read
back by the ATIF reader with the same steps, calls, figures and subagent links as the session
the page shows, redacted as the page is, byte-identical on a rebuild and kept in step by
incremental builds; without the option no such file is written and no page links one."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from atif import Trajectory
from bs4 import BeautifulSoup
from secret_set import SECRETS
from sitetools import SITECHECK, run_sitecheck, soup
from test_atif import read_all, same_session
from test_site import glue_session

from replay_site import load
from replay_site.discover import discover, pick_readers
from replay_site.figures.summary import page_slug
from replay_site.model import Session
from replay_site.pages import paging
from replay_site.pipeline import stages as site

DATA = Path(__file__).parent / "data"
ATIF = ".atif.json"


def entries(out: Path) -> list[dict]:
    return json.loads((out / "sessions.json").read_text())["sessions"]


def trajectories(out: Path) -> list[Path]:
    return sorted(out.rglob(f"*{ATIF}"))


def as_built(root: Path) -> list[Session]:
    """The sessions of `root` as a default build reads them: redacted."""
    sessions = []
    for source in discover([root], pick_readers("auto"), []):
        sessions.extend(load.read_source(source, load.ReadOptions())[0])
    return sessions


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("atif-site") / "site"
    site.build([DATA], out, site.BuildOptions(incremental=False, atif=True, no_archive=True))
    return out


def test_every_session_has_a_valid_trajectory_beside_its_page_and_nothing_else(built):
    pages = [entry["page"] for entry in entries(built)]
    assert len(pages) > 50  # every format's fixtures
    expected = {built / paging.atif_path(Path(page).stem) for page in pages}
    assert set(trajectories(built)) == expected
    for path in sorted(expected):
        document = json.loads(path.read_bytes())
        Trajectory.model_validate(document)  # raises on any breach of the schema's rules
        assert document["schema_version"] == "ATIF-v1.7" and document["steps"] is not None


def test_each_trajectory_reads_back_as_the_session_its_page_shows(built):
    """Read each top session's file with the ATIF reader (its subagents' files named in it
    come along) and compare it with the session as the build read it, subagents included."""
    tops = as_built(DATA)
    with_children = 0
    for session in tops:
        path = built / paging.atif_path(page_slug(session, session.source))
        [back] = read_all(path, "atif")
        same_session(session, back)
        with_children += bool(session.children)
    assert with_children >= 5  # Claude, Codex, OpenCode, Pi, Kimi... sessions with subagents or forks


def test_subagent_files_are_named_by_their_parent_and_read_alone_too(built):
    """A delegating call's result names the child's file (trajectory_path, as Harbor writes a
    trial's subagents); the child's own file reads as that subagent, its parent named."""
    by_id = {entry["id"]: entry for entry in entries(built)}
    children = [entry for entry in entries(built) if entry.get("parent") in by_id]
    assert children
    for entry in children:
        parent = built / paging.atif_path(Path(by_id[entry["parent"]]["page"]).stem)
        name = Path(paging.atif_path(Path(entry["page"]).stem)).name
        refs = [ref for step in json.loads(parent.read_bytes())["steps"]
                for result in (step.get("observation") or {}).get("results", [])
                for ref in result.get("subagent_trajectory_ref") or []]
        if entry["id"] in {ref["trajectory_id"] for ref in refs}:  # linked by a call (a fork may be linked by none)
            assert {"trajectory_id": entry["id"], "session_id": entry["id"], "trajectory_path": name} in refs
        [alone] = read_all(built / "sessions" / name, "atif")
        assert alone.id == entry["id"] and alone.parent_id == entry["parent"]


def test_the_header_links_the_trajectory_on_every_page(built):
    for entry in entries(built):
        stem = Path(entry["page"]).stem
        pages = [built / entry["page"], *sorted((built / "sessions" / stem).glob("*.html"))]
        for page in pages:
            [link] = soup(page).select("header.summary a[download]")
            assert link.get_text() == "Download as ATIF"
            assert (page.parent / link["href"]).resolve() == (built / paging.atif_path(stem)).resolve()


@pytest.mark.skipif(not SITECHECK.is_file(), reason=f"the shared site checker is not at {SITECHECK}")
def test_the_site_with_trajectories_passes_the_structural_check(built):
    assert run_sitecheck(built).endswith(" 0 problems")


def test_without_the_option_no_trajectory_is_written_or_linked(data_site):
    assert trajectories(data_site) == []
    for page in sorted((data_site / "sessions").rglob("*.html")):
        assert "Download as ATIF" not in page.read_text() and not BeautifulSoup(page.read_bytes(), "html.parser").select("a[download]")


def test_trajectories_are_redacted_exactly_as_the_pages(tmp_path):
    secret = SECRETS["anthropic"]
    # a Glue log: the secret in the prompt, a call's arguments and its result
    records = [{"type": "user_message", "text": f"use {secret} please"},
               {"type": "tool_call", "id": "c1", "name": "bash", "arguments": {"command": f"export KEY={secret}"}},
               {"type": "tool_result", "call_id": "c1", "success": True, "content": f"KEY={secret}"}]
    lines = [json.dumps({"timestamp": f"2026-01-01T00:00:0{second}Z", **record}) for second, record in enumerate(records)]
    source = glue_session(tmp_path / "logs" / "s", lines)
    out = tmp_path / "site"
    site.build([source], out, site.BuildOptions(incremental=False, atif=True, no_archive=True))
    [path] = trajectories(out)
    text = path.read_text()
    assert secret not in text and secret not in "".join(p.read_text() for p in out.rglob("*.html"))
    document = json.loads(text)
    [session] = as_built(source)  # the texts the page shows, as the build redacted them
    assert document["steps"][0]["message"] == session.steps[0].text and "[REDACTED:" in session.steps[0].text
    call = document["steps"][1]["tool_calls"][0]
    assert call["arguments"] == session.steps[1].tool_calls[0].arguments
    assert document["steps"][1]["observation"]["results"][0]["content"] == session.steps[1].tool_calls[0].output
    page = soup(out / entries(out)[0]["page"]).get_text()
    assert session.steps[0].text in page


def test_rebuilds_give_the_same_bytes_and_keep_files_in_step(tmp_path):
    logs = tmp_path / "logs"
    shutil.copytree(DATA / "codex", logs / "codex")
    shutil.copytree(DATA / "claude", logs / "claude")
    out, again = tmp_path / "site", tmp_path / "again"
    options = dict(atif=True, archive=str(tmp_path / "archive"))
    site.build([logs], out, site.BuildOptions(**options))
    site.build([logs], again, site.BuildOptions(incremental=False, **options))
    files = {path.relative_to(out): path.read_bytes() for path in trajectories(out)}
    assert files and files == {path.relative_to(again): path.read_bytes() for path in trajectories(again)}
    stats = {path.relative_to(out): path.stat() for path in trajectories(out)}

    # nothing changed: every trajectory kept as it was (the same file, never written again)
    site.build([logs], out, site.BuildOptions(**options))
    assert {p.relative_to(out): (p.stat().st_ino, p.stat().st_mtime_ns) for p in trajectories(out)} == \
           {name: (stat.st_ino, stat.st_mtime_ns) for name, stat in stats.items()}

    # one log grows by a turn: its session's trajectory is written again, and only it
    simplified = logs / "codex" / "simplified.jsonl"
    [grown] = [session for session in as_built(logs) if session.id == "simplified-demo"]
    turn = {"type": "message", "role": "user", "created_at": "2026-01-03T09:00:05Z", "content": [{"type": "input_text", "text": "one more thing"}]}
    with simplified.open("a") as stream:
        stream.write(json.dumps(turn) + "\n")
    site.build([logs], out, site.BuildOptions(**options))
    name = Path(paging.atif_path(page_slug(grown, grown.source)))
    rewritten = {p.relative_to(out) for p in trajectories(out) if (p.stat().st_ino, p.stat().st_mtime_ns) !=
                 (stats[p.relative_to(out)].st_ino, stats[p.relative_to(out)].st_mtime_ns)}
    assert rewritten == {name}
    assert json.loads((out / name).read_bytes())["steps"][-1]["message"] == "one more thing"

    # the log is deleted: the archive keeps its session, which keeps its trajectory
    simplified.unlink()
    site.build([logs], out, site.BuildOptions(**options))
    assert (out / name).is_file() and set(files) <= {p.relative_to(out) for p in trajectories(out)}

    # without the archive the session, its page and its trajectory are gone
    site.build([logs], out, site.BuildOptions(atif=True, no_archive=True))
    assert not (out / name).exists() and not (out / name.with_suffix("").with_suffix(".html")).exists()
    assert {p.relative_to(out) for p in trajectories(out)} == set(files) - {name}

    # the option dropped: the pages no longer link a trajectory, and none is left
    site.build([logs], out, site.BuildOptions(no_archive=True))
    assert trajectories(out) == [] and "Download as ATIF" not in "".join(p.read_text() for p in out.rglob("*.html"))


def test_a_long_session_of_several_pages_is_one_trajectory_linked_from_each_page(tmp_path):
    """A session of 3 pages (200 steps a page), which the build spools a page at a time: its
    trajectory gathered from every page, the same session read back, linked from every page."""
    from gen_long_session import write_long_claude_session

    log = write_long_claude_session(tmp_path / "projects" / "-home-dev-long" / "long.jsonl", steps=450)
    out = tmp_path / "site"
    site.build([tmp_path / "projects"], out, site.BuildOptions(incremental=False, atif=True, no_archive=True))
    [entry] = entries(out)
    stem = Path(entry["page"]).stem
    later = sorted((out / "sessions" / stem).glob("*.html"))
    assert [page.name for page in later] == ["2.html", "3.html"]
    for page in [out / entry["page"], *later]:
        [link] = soup(page).select("header.summary a[download]")
        assert (page.parent / link["href"]).resolve() == (out / paging.atif_path(stem)).resolve()
    [session] = as_built(tmp_path / "projects")
    assert len(session.steps) > 400 and log.is_file()
    [back] = read_all(out / paging.atif_path(stem), "atif")
    same_session(session, back)
