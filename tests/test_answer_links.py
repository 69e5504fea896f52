"""An agent's answer as its author meant it (issue 30): a link to a file of the agent's
workspace, `[name](/path/file.ts:99)` as Codex cites what it changed, is shown as that path in
code (it would point into the agent's machine, so it is never a link), with no inline markup
inside it (`__tests__` stays `__tests__`, not bold "tests"); web links stay links, unsafe ones
stay text, raw HTML stays escaped.
"""
from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup

from replay_site.pages.highlight import markdown

CODEX_ANSWER = "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"


def _html(text: str) -> BeautifulSoup:
    return BeautifulSoup(str(markdown(text)), "html.parser")


def test_a_local_file_link_is_its_path_in_code():
    page = _html("- [reasoning.test.ts](/repo/src/plugins/__tests__/reasoning.test.ts:247): covers it")
    assert [code.get_text() for code in page.find_all("code")] == ["/repo/src/plugins/__tests__/reasoning.test.ts:247"]
    assert page.find("strong") is None and page.find("a") is None and "](" not in page.get_text()
    assert [code.get_text() for code in _html("[b](./b_c_.py) [c](src/__init__.py#L3) [d](~/x/__y__.md)").find_all("code")] == [
        "./b_c_.py", "src/__init__.py#L3", "~/x/__y__.md"]


def test_other_links_are_as_before():
    page = _html("[web](https://example.org/__a__) [js](javascript:alert(1)) [t](/a/b \"title\") [anchor](#x) [html](/x/<script>)")
    assert [(a["href"], a.get_text()) for a in page.find_all("a")] == [("https://example.org/__a__", "web")]
    assert "[js](javascript:alert(1))" in page.get_text() and "[anchor](#x)" in page.get_text()
    assert page.find("script") is None and [code.get_text() for code in page.find_all("code")] == ["/x/<script>"]


def test_the_codex_answer_shows_its_paths_intact(corpus):
    from replay_site.load import ReadOptions, iter_sessions

    [session] = iter_sessions([corpus / "codex" / CODEX_ANSWER], ReadOptions())
    page = _html(session.steps[-1].text)  # #71, the final answer: three links to changed files
    paths = [code.get_text() for code in page.find_all("code") if code.get_text().startswith("/")]
    assert [Path(path).name for path in paths] == ["codemie-code.plugin.ts:99", "opencode.plugin.ts:112", "codemie-code-reasoning.test.ts:247"]
    assert "/src/agents/plugins/__tests__/codemie-code-reasoning.test.ts:247" in paths[2]
    assert page.find("strong") is None
