"""Claude Code's `settings.json`, beside `projects/`: `cleanupPeriodDays`, after how many days
without activity Claude Code deletes a transcript (30 when unset). A build reading those
folders says once which setting to raise when it is 30 or less."""
from __future__ import annotations

from pathlib import Path

from replay_site.readers.fields import number
from replay_site.readers.jsonl import load_json

DEFAULT_CLEANUP_DAYS = 30


def cleanup_hints(roots: list[Path], projects_folders: list[Path]) -> list[tuple[str, str]]:
    """(settings file, hint) for each Claude Code configuration whose projects folder a root
    is or lies in, when it deletes transcripts after 30 days or fewer."""
    hints = []
    for projects in projects_folders:
        if not any(root == projects or projects in root.parents for root in roots):
            continue
        settings = projects.parent / "settings.json"
        days = DEFAULT_CLEANUP_DAYS
        if settings.is_file():
            read = load_json(settings, [])
            found = number((read or {}).get("cleanupPeriodDays"))
            days = int(found) if found is not None and found == found and abs(found) < 1e9 else DEFAULT_CLEANUP_DAYS
        if days <= DEFAULT_CLEANUP_DAYS:
            hints.append((str(settings), f"Claude Code deletes transcripts after {days} days without activity; raise "
                          f'"cleanupPeriodDays" in {_shown(settings)} (e.g. to 3650) to keep them on disk (the archive '
                          "keeps what replay-site has read either way)"))
    return hints


def _shown(settings: Path) -> str:
    """The settings file as the index names it: below the home folder as ~/…, so a published
    site does not show the user's home."""
    try:
        return "~/" + settings.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(settings)
