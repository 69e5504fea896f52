"""The archive on whole corpora (the issue's first "done when"): on a copy of a corpus, after
the first build every log is deleted and the site rebuilt: the same sessions with the same
figures, every page still there with its notice, and --full renders them again from the
archive. Run on the real corpus (../shared/corpus, skipped when absent) and, as a slow test,
on the benchmark's medium Claude Code corpus (tests/benchmark_corpus.py, ~80 MB generated)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from replay_site.pipeline import stages as site

NOTICE = "log removed from disk; kept in the archive since"


def sessions(out: Path) -> tuple[dict[str, dict], dict]:
    document = json.loads((out / "sessions.json").read_text(encoding="utf-8"))
    return {s["page"]: s for s in document["sessions"]}, document["inputs"]


def gone_and_back(logs: Path, tmp_path: Path) -> None:
    out, options = tmp_path / "site", site.BuildOptions(archive=str(tmp_path / "archive"))
    site.build([logs], out, options)
    before, inputs = sessions(out)
    assert before and inputs["sessions_from_archive"] == 0
    for path in logs.rglob("*"):
        if path.is_file():
            path.unlink()
    site.build([logs], out, options)
    after, inputs = sessions(out)
    assert sorted(after) == sorted(before)
    for page, summary in after.items():
        assert summary["kept_since"], page
        assert {**summary, "kept_since": None} == before[page], page  # every figure the same
        assert NOTICE in BeautifulSoup((out / page).read_text(encoding="utf-8"), "html.parser").select_one("p.kept").get_text()
    assert inputs["sessions_from_archive"] == len(after)
    site.build([logs], out, site.BuildOptions(archive=str(tmp_path / "archive"), incremental=False, title="Again"))
    for page in after:
        html = (out / page).read_text(encoding="utf-8")
        assert "Again" in html and NOTICE in html, page
    assert sessions(out)[0] == after


def test_the_real_corpus_comes_back_from_the_archive(corpus, tmp_path):
    shutil.copytree(corpus, tmp_path / "logs")
    gone_and_back(tmp_path / "logs", tmp_path)


@pytest.mark.slow
def test_the_medium_corpus_comes_back_from_the_archive(tmp_path):
    from benchmark_corpus import make_corpus

    make_corpus(tmp_path / "logs", "medium", ["claude"])
    logs = sum(path.stat().st_size for path in (tmp_path / "logs").rglob("*") if path.is_file())
    gone_and_back(tmp_path / "logs", tmp_path)
    # and the archive, chunks and manifests, takes at most a fifth of the logs (0.09x measured)
    assert sum(path.stat().st_size for path in (tmp_path / "archive").rglob("*") if path.is_file()) <= 0.2 * logs
