"""A session header says each fact once (issue 30): rlm-code runs used to repeat their outcome
("Completed yes", "Status completed"), their task (the title) and their token total."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from bs4 import BeautifulSoup

from replay_site.pipeline import stages as site

DATA = Path(__file__).parent / "data" / "rlm"


def header_rows(page: Path) -> list[tuple[str, str]]:
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    header = soup.find("dl")
    return [(" ".join(dt.get_text(" ", strip=True).split()), " ".join(dt.find_next_sibling("dd").get_text(" ", strip=True).split()))
            for dt in header.find_all("dt")]


def test_rlm_headers_say_each_fact_once(tmp_path):
    out = tmp_path / "site"
    site.build([DATA], out, site.BuildOptions(incremental=False, no_archive=True))
    pages = sorted((out / "sessions").glob("*.html"))
    assert pages
    for page in pages:
        rows = header_rows(page)
        labels = [label for label, _ in rows]
        assert not {"Status", "Completed"} & set(labels) or "completed" not in dict(rows).get("Outcome", ""), (page.name, rows)
        title = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").find("h1").get_text(" ", strip=True)
        assert all(value != title for label, value in rows if label != "Subagent of"), (page.name, rows)
        tokens = {value.replace(",", "").split(" ")[0] for label, value in rows if label.startswith("Tokens")}
        assert not [label for label, value in rows if label == "Total tokens" and value.replace(",", "") in tokens], (page.name, rows)
        assert max(Counter(labels).values()) == 1, (page.name, rows)
