"""Site search ranks the agent's own steps above injected context and counts the sessions
its hits are in (issue 30: unquoted `npm test` showed the real run 7th, behind system prompts,
and said "in 7 of 7 sessions" when every hit was in one).

Seven Codex rollouts written here: the first has a developer (system) message and AGENTS.md
text that both say "npm test" (context steps), then the agent's `npm test` run; the other six
hold "npm" and "test" in different steps, so the term map names them, yet no step matches.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_browser import browser, watched_page  # noqa: F401  (the module's chromium fixture)

META = '{"timestamp":"2026-02-03T1%d:00:00.000Z","type":"session_meta","payload":{"id":"0c500000-0000-4000-8000-00000000005%d","timestamp":"2026-02-03T1%d:00:00.000Z","cwd":"/home/dev/web","originator":"codex_cli_rs","cli_version":"0.169.0","source":"cli"}}'


def _message(role: str, text: str, second: int, hour: int) -> str:
    kind = "output_text" if role == "assistant" else "input_text"
    return json.dumps({"timestamp": f"2026-02-03T1{hour}:00:{second:02d}.000Z", "type": "response_item",
                       "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}})


def _rollouts(folder: Path) -> Path:
    folder.mkdir(parents=True)
    first = [
        META % (0, 0, 0),
        _message("developer", "You are a coding agent. Before you finish, always run npm test and report its result.", 1, 0),
        _message("user", "# AGENTS.md instructions for /home/dev/web\n\nRun npm test after each change.", 2, 0),
        _message("user", "The header adapter is broken; fix it.", 3, 0),
        json.dumps({"timestamp": "2026-02-03T10:00:04.000Z", "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "call_id": "call_1",
            "arguments": json.dumps({"command": ["bash", "-lc", "npm test"]})}}),
        json.dumps({"timestamp": "2026-02-03T10:00:05.000Z", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "call_1",
            "output": json.dumps({"output": "FAIL src/header.test.js\nAssertionError: expected sticky\n", "metadata": {"exit_code": 1}})}}),
        _message("assistant", "The header test fails on the sticky position.", 6, 0),
    ]
    (folder / "rollout-2026-02-03T10-00-00-0c500000-0000-4000-8000-000000000050.jsonl").write_text("\n".join(first) + "\n")
    for n in range(1, 7):
        lines = [META % (n, n, n), _message("user", "Write a unit test for the parser.", 1, n),
                 _message("assistant", "This project builds with npm; I added the case.", 2, n)]
        (folder / f"rollout-2026-02-03T1{n}-00-00-0c500000-0000-4000-8000-00000000005{n}.jsonl").write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture(scope="module")
def ranked_site(tmp_path_factory) -> Path:
    from replay_site.pipeline import stages as site

    root = tmp_path_factory.mktemp("ranking")
    site.build([_rollouts(root / "codex")], root / "site", site.BuildOptions())
    return root / "site"


def test_the_agents_run_comes_before_injected_context(browser, ranked_site):
    context = browser.new_context()
    page = watched_page(context)
    page.goto((ranked_site / "index.html").as_uri())
    page.locator("#search-input").fill("npm test")
    status = page.locator("#search-results .search-status").filter(has_text="matching")
    status.wait_for()
    kinds = page.locator("#search-results .hit-kind").all_inner_texts()
    # the agent's npm test run (an assistant step) first; the developer message and AGENTS.md
    # (two context steps) after it
    assert kinds[0] == "assistant" and sorted(kinds[1:]) == ["context", "context"]
    assert "npm test" in page.locator("#search-results .hit-text").first.inner_text()
    # three hits, all in the first rollout; all seven rollouts hold both words and were searched
    assert status.inner_text() == "3 matching steps in 1 session (7 searched of 7 sessions that hold every word)."
    assert page.errors == [] and page.remote == []
    context.close()
