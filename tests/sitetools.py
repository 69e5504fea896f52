"""Helpers for tests that look at built sites with BeautifulSoup."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from bs4 import BeautifulSoup
from conftest import CORPUS

from replay_site.pipeline import stages as site

SITECHECK = CORPUS.parent / "tools" / "sitecheck.py"


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_bytes(), "html.parser")


def step_numbers(page: BeautifulSoup) -> list[int]:
    return [int(m.group(1)) for tag in page.find_all(id=True) if (m := re.fullmatch(r"step-(\d+)", tag["id"]))]


def external_references(page: BeautifulSoup) -> list[str]:
    """src/href values that would make the browser contact a host (links to read are fine)."""
    found = []
    for tag in page.find_all(["script", "img", "link", "iframe", "source", "audio", "video", "object", "embed"]):
        for attribute in ("src", "href", "data"):
            value = (tag.get(attribute) or "").strip().lower()
            if value.startswith(("http:", "https:", "//", "ftp:")):
                found.append(f"{tag.name} {value}")
    return found


def run_sitecheck(site: Path) -> str:
    """The shared structural checker's verdict; it must report 0 problems."""
    result = subprocess.run([sys.executable, str(SITECHECK), str(site)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip().splitlines()[-1]


def render_whole(renderer, session, summary, nav) -> dict[str, str]:
    """Every file of one session rendered from the session whole in memory (a build renders
    it from the spool a page at a time): site path -> text, the first page first."""
    from replay_site.pages import paging, views

    return dict(renderer.session_pages(views.digest(session, summary), paging.pages_of(session.steps), nav))


def built_entries(sources: list[Path], out: Path) -> dict[str, dict]:
    """A site of `sources` built into `out`, and its sessions.json entries by session id."""
    site.build(sources, out, site.BuildOptions(incremental=False))
    index = json.loads((out / "sessions.json").read_text())
    return {entry["id"]: entry for entry in (index["sessions"] if isinstance(index, dict) else index)}


def tool_names(page: BeautifulSoup) -> list[str]:
    """The names of the page's tool calls, in order."""
    return [tag.get_text() for tag in page.select(".tool-call .tool-name")]


def child_link(page: BeautifulSoup, tool: str) -> str:
    """Where the first call of `tool` on the page links its subagent's page."""
    call = next(call for call in page.select(".tool-call") if call.select_one(".tool-name").get_text() == tool)
    return call.select_one(".child-link a")["href"]


def subagent_site(sources: list[Path], out: Path, parent: str, child: str, tool: str) -> tuple[dict[str, dict], BeautifulSoup]:
    """A site of `sources`: its entries, and the parent's page, checked to list the child under
    its parent and to link it from the first `tool` call, with no outside reference."""
    entries = built_entries(sources, out)
    assert entries[child]["parent"] == parent
    page = soup(out / entries[parent]["page"])
    assert child_link(page, tool).endswith(entries[child]["page"].rpartition("/")[2])
    assert external_references(page) == []
    return entries, page
