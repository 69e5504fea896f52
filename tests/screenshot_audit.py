"""The README's audit screenshot: the "what went wrong" card and the ledger of the recover
fixture, taken in Chromium from a site built of tests/data. Run from the checkout:
    python tests/screenshot_audit.py docs/screenshots/audit.png
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from replay_site.pipeline import stages as site

DATA = Path(__file__).parent / "data"
SESSION = "d5000000-0000-4000-8000-00000000000a"


def main(target: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        site.build([DATA], out, site.BuildOptions(incremental=False))
        sessions = json.loads((out / "sessions.json").read_text())["sessions"]
        page_path = out / next(s["page"] for s in sessions if s["id"] == SESSION)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1100, "height": 1400}, color_scheme="light")
            page.goto(page_path.as_uri())
            top = page.locator("#what-went-wrong").bounding_box()
            ledger = page.locator("#ledger").bounding_box()
            page.screenshot(path=str(target), clip={"x": 0, "y": top["y"] - 12, "width": 1100,
                                                    "height": ledger["y"] + ledger["height"] - top["y"] + 24})
            browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
