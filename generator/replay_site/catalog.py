"""Sessions as a library: iterate what SOURCES hold, or load one by path, id or --last.

The CLI's show/list/check/compare commands and library users go through here; the site
builder uses the same reading function, so every command sees the same figures.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .costs import PriceBook
from .discover import DiscoveryError, discover, pick_readers
from .model import Problem, Session
from .site import read_source


def iter_sessions(roots: list[Path], format_name: str = "auto", prices: PriceBook | None = None,
                  problems: list[Problem] | None = None, redact: bool = True,
                  redact_patterns: tuple[str, ...] = ()) -> Iterator[Session]:
    """Every session under `roots`, children included (parents first), read and priced
    (and with credentials replaced when `redact`)."""
    problems = [] if problems is None else problems
    for source in discover(roots, pick_readers(format_name), problems):
        sessions, failures = read_source(source, prices, redact, redact_patterns)
        problems.extend(failures)
        for top in sessions:
            yield from top.walk()


def load_session(reference: str | None, roots: list[Path], format_name: str = "auto",
                 prices: PriceBook | None = None, redact: bool = True, redact_patterns: tuple[str, ...] = ()) -> Session:
    """One session: `reference` is a log path, a session id (or unique prefix), or None for
    the most recently started session under `roots`."""
    if reference and Path(reference).exists():
        found = list(iter_sessions([Path(reference)], format_name, prices, redact=redact, redact_patterns=redact_patterns))
        if not found:
            raise DiscoveryError(f"{reference}: no readable session found")
        return found[0]
    candidates = list(iter_sessions(roots, format_name, prices, redact=redact, redact_patterns=redact_patterns))
    if reference is None:
        dated = [s for s in candidates if s.started_at and not s.parent_id]
        if not dated:
            raise DiscoveryError("no dated session found")
        return max(dated, key=lambda s: (_sortable(s), s.id))
    exact = [s for s in candidates if s.id == reference]
    matches = exact or [s for s in candidates if s.id.startswith(reference)]
    if len(matches) != 1:
        reason = "no session" if not matches else f"{len(matches)} sessions"
        raise DiscoveryError(f"{reason} with id {reference!r} under {', '.join(map(str, roots))}")
    return matches[0]


def _sortable(session: Session) -> str:
    return session.started_at.isoformat() if session.started_at else ""
