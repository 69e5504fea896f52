"""No visible text is lost to redaction (issue 33), checked where a reader sees it: a built
site's page, its search index and sessions.json keep every character around each secret, byte
for byte, while no output file holds the secret (test_redact_spans checks the redaction itself
over generated texts)."""
from __future__ import annotations

import json
from pathlib import Path

from bs4 import BeautifulSoup
from fake_secrets import FAKES

from replay_site.pipeline import stages as site

SESSION = "5e55c0de-0000-4000-8000-000000000033"
# One fake of each provider, beside ordinary words on both sides and on the next line.
PLACED = list({fake.provider: fake for fake in FAKES if "\n" not in fake.value}.values())


def neighbours(index: int) -> tuple[str, str, str]:
    return f"before-{index} key:", f"; after-{index} (kept)", f"next line {index} stays whole"


def line(kind: str, uuid: int, parent: int | None, message: dict) -> str:
    return json.dumps({"parentUuid": f"c0000000-0000-4000-8000-{parent:012d}" if parent else None, "isSidechain": False,
                       "userType": "external", "cwd": "/home/dev/spans", "sessionId": SESSION, "version": "2.1.4",
                       "type": kind, "uuid": f"c0000000-0000-4000-8000-{uuid:012d}",
                       "timestamp": f"2026-03-01T08:00:{uuid:02d}.000Z", "message": message})


def write_log(folder: Path) -> None:
    output = "\n".join(f"{before} {fake.value}{after}\n{following}" for index, fake in enumerate(PLACED)
                       for before, after, following in [neighbours(index)])
    lines = [
        line("user", 1, None, {"role": "user", "content": "Print the deploy config and check it"}),
        line("assistant", 2, 1, {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                                 "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                              "input": {"command": "cat deploy.cfg", "description": "Show the deploy config"}}],
                                 "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}}),
        line("user", 3, 2, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": output}]}),
    ]
    (folder / "-home-dev-spans").mkdir(parents=True)
    (folder / "-home-dev-spans" / f"{SESSION}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_every_character_around_each_secret_is_on_the_page_and_in_search(tmp_path):
    write_log(tmp_path / "logs")
    out = tmp_path / "site"
    site.build([tmp_path / "logs"], out, site.BuildOptions(incremental=False, no_archive=True))
    page = next((out / "sessions").glob("*.html"))
    shown = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").get_text()
    # the search shards hold each step's text with its whitespace folded to single spaces
    searched = "".join(path.read_text(encoding="utf-8") for path in (out / "assets" / "search").glob("*.js"))
    every_file = "".join(path.read_text(encoding="utf-8", errors="replace") for path in out.rglob("*") if path.is_file())
    for index, fake in enumerate(PLACED):
        before, after, following = neighbours(index)
        assert fake.value not in every_file, fake.provider
        # the marker sits between the neighbours, and nothing of them is gone
        assert f"{before} [REDACTED:" in shown and f"chars]{after}\n{following}" in shown, (fake.provider, fake.kind)
        assert f"{before} [REDACTED:" in searched and f"chars]{after} {following}" in searched, fake.provider
    entry = json.loads((out / "sessions.json").read_text(encoding="utf-8"))["sessions"][0]
    assert entry["title"] == "Print the deploy config and check it"
    assert entry["redactions"] and sum(entry["redactions"].values()) >= len(PLACED)
