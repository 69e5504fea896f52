"""The README's card screenshot: the "what went wrong" card of a real session of the shared
corpus (the Codex session whose npm test fails at #47 and passes again at #53), taken in
Chromium from a site built of that one log. Run from the checkout, beside ../shared/corpus:
    python tests/screenshot_card.py docs/screenshots/card-codex.png
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from replay_site.pipeline import stages as site

LOG = (Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "codex"
       / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")


def main(target: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        site.build([LOG], out, site.BuildOptions(incremental=False))
        page_path = next((out / "sessions").glob("*.html"))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1000, "height": 1400}, color_scheme="light")
            page.goto(page_path.as_uri())
            page.locator("#what-went-wrong").screenshot(path=str(target))
            browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
