"""Review before publishing: `replay-site redactions` lists every hit (masked) with its hash;
`.replay-site-redact.toml` allows or forces strings by hash for every later build; `build
--strict` fails while a hit is not decided."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bs4 import BeautifulSoup
from fake_secrets import FAKES

from replay_site.redact.decisions import digest

GITHUB = next(fake.value for fake in FAKES if fake.kind == "classic-pat")
SLACK = next(fake.value for fake in FAKES if fake.kind == "bot-token")
HOUSE_WORD = "Blue-Heron-Tuesday"  # a house secret no rule knows


def _logs(root: Path) -> Path:
    folder = root / "logs" / "review-demo"
    folder.mkdir(parents=True)
    lines = [{"role": "user", "content": f"Deploy with {GITHUB} and tell the team", "timestamp": "2026-03-02T10:00:01"},
             {"role": "assistant", "content": f"Posting as {SLACK}; the vault word is {HOUSE_WORD}.",
              "timestamp": "2026-03-02T10:00:02"}]
    (folder / "conversation.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return root / "logs"


def _run(cwd: Path, *arguments: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "generator")}
    return subprocess.run([sys.executable, "-c", "from replay_site.cli.entry import main; main()", *arguments],
                          cwd=cwd, capture_output=True, text=True, env=env, timeout=300, check=False)


def _site_text(site: Path) -> str:
    return "".join(path.read_text(errors="replace") for path in site.rglob("*") if path.is_file())


def test_review_decide_and_build_strictly(tmp_path):
    logs = _logs(tmp_path)
    review = _run(tmp_path, "redactions", str(logs), "-o", "review.html", "-f", "gptme")
    assert review.returncode == 0, review.stderr
    page = (tmp_path / "review.html").read_text()
    assert GITHUB not in page and SLACK not in page and GITHUB[:12] not in page
    rows = BeautifulSoup(page, "html.parser").select("table.review-hits tbody tr")
    hashes = {row.find_all("td")[4].get_text(strip=True) for row in rows}
    assert hashes == {digest(GITHUB), digest(SLACK)}  # the two tokens; the house word is no rule's
    assert all(row.find_all("td")[3].get_text() == "not reviewed" for row in rows)

    strict = _run(tmp_path, "build", str(logs), "-o", "site", "-f", "gptme", "--strict", "-q")
    assert strict.returncode == 1 and "2 strings not reviewed" in strict.stderr, strict.stderr
    assert not (tmp_path / "site").exists()  # nothing published

    (tmp_path / ".replay-site-redact.toml").write_text(
        f'[decisions]\n"{digest(SLACK)}" = "allow"\n"{digest(GITHUB)}" = "redact"\n"{digest(HOUSE_WORD)}" = "redact"\n')
    built = _run(tmp_path, "build", str(logs), "-o", "site", "-f", "gptme", "--strict", "-q")
    assert built.returncode == 0, built.stderr
    text = _site_text(tmp_path / "site")
    assert SLACK in text and GITHUB not in text and HOUSE_WORD not in text and "[REDACTED:decided·16-31chars]" in text
    assert ".replay-site-redact" not in "\n".join(str(p) for p in (tmp_path / "site").rglob("*"))

    # The decisions are part of the build cache's key, and of what the fast entry checks
    # before answering "nothing changed": taking the allowance back rebuilds, twice over.
    assert _run(tmp_path, "build", str(logs), "-o", "site", "-f", "gptme", "-q").returncode == 0
    unchanged = _run(tmp_path, "build", str(logs), "-o", "site", "-f", "gptme")
    assert "Nothing changed" in unchanged.stdout, unchanged.stdout
    (tmp_path / ".replay-site-redact.toml").write_text(f'[decisions]\n"{digest(GITHUB)}" = "redact"\n')
    rebuilt = _run(tmp_path, "build", str(logs), "-o", "site", "-f", "gptme", "-q")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert SLACK not in _site_text(tmp_path / "site") and HOUSE_WORD in _site_text(tmp_path / "site")


def test_the_review_page_is_never_written_into_a_site(tmp_path):
    logs = _logs(tmp_path)
    assert _run(tmp_path, "build", str(logs), "-o", "site", "-f", "gptme", "-q").returncode == 0
    refused = _run(tmp_path, "redactions", str(logs), "-o", "site/sessions/review.html", "-f", "gptme")
    assert refused.returncode == 2 and "never published" in refused.stderr
    assert not (tmp_path / "site" / "sessions" / "review.html").exists()


def test_a_broken_decisions_file_is_a_mistake_to_fix(tmp_path):
    logs = _logs(tmp_path)
    (tmp_path / ".replay-site-redact.toml").write_text('[decisions]\n"abc" = "maybe"\n')
    result = _run(tmp_path, "build", str(logs), "-o", "site", "-f", "gptme", "-q")
    assert result.returncode == 2 and "allow" in result.stderr
