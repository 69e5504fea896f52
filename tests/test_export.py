"""`replay-site export`: one session as one self-contained HTML file."""
from __future__ import annotations

import base64
import hashlib
import json

from sitetools import external_references, soup, step_numbers
from test_site import glue_session
from typer.testing import CliRunner

from replay_site.cli.app import app
from replay_site.pages.render import OUTPUT_LIMIT

runner = CliRunner()


def sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_export_writes_one_file_with_everything_inline(tmp_path):
    long_output = "".join(f"line {n}\n" for n in range(20_000))
    assert len(long_output) > OUTPUT_LIMIT
    logs = glue_session(tmp_path / "logs" / "s1", [
        '{"timestamp":"2026-01-01T00:00:00Z","type":"user_message","text":"count to 20000"}',
        '{"timestamp":"2026-01-01T00:00:01Z","type":"tool_call","id":"c1","name":"bash","arguments":{"command":"seq 0 19999"}}',
        json.dumps({"timestamp": "2026-01-01T00:00:02Z", "type": "tool_result", "call_id": "c1", "content": long_output, "success": True}),
        '{"timestamp":"2026-01-01T00:00:03Z","type":"assistant_message","text":"Done: see [step 2](#step-2)."}',
    ])
    out = tmp_path / "replay.html"
    result = runner.invoke(app, ["export", str(logs), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == ["replay.html"]  # nothing beside it

    page = soup(out)
    assert not page.find("link") and not page.find("script", src=True) and not page.find("img", src=True)
    assert external_references(page) == []
    # the full output is on the page, not cut and linked as in a site
    assert page.select_one("pre.output-text").get_text() == long_output
    assert not page.select("p.cut")
    ids = {tag["id"] for tag in page.find_all(id=True)}
    for anchor in page.find_all("a", href=True):
        assert anchor["href"].startswith("#") and anchor["href"][1:] in ids, anchor["href"]
    assert step_numbers(page) == list(range(1, len(page.select("li.step")) + 1))
    # its own CSS and JS, admitted by hash and nothing else
    csp = page.find("meta", attrs={"http-equiv": "Content-Security-Policy"})["content"]
    assert f"style-src 'sha256-{sha256(page.style.string)}'" in csp
    assert f"script-src 'sha256-{sha256(page.find('script', type=None).string)}'" in csp
    assert "unsafe-inline" not in csp


def test_export_last_and_errors(tmp_path, data):
    result = runner.invoke(app, ["export", "--last", "-s", str(data / "glue"), "-o", str(tmp_path / "last.html")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "last.html").exists()
    nothing = runner.invoke(app, ["export", "-o", str(tmp_path / "x.html")])
    assert nothing.exit_code == 1 and "--last" in nothing.stderr
    missing = runner.invoke(app, ["export", "no-such-session", "-s", str(data / "glue"), "-o", str(tmp_path / "y.html")])
    assert missing.exit_code == 1 and "no session with id" in missing.stderr
