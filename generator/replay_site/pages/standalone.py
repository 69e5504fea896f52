"""Single-file pages: one session (export) or two compared, with nothing beside them."""
from __future__ import annotations

from replay_site.costs import PriceBook, pricing_source
from replay_site.figures.compare import Comparison, compare_sessions
from replay_site.figures.parts import session_part
from replay_site.figures.summary import summarize
from replay_site.model import Session
from replay_site.pages.render import Renderer
from replay_site.readers import registry


def export_page(session: Session, theme: str = "default", book: PriceBook | None = None, steps: range | None = None,
                markdown: bool = False) -> str:
    """One session as one HTML file (CSS and JS inline, outputs uncut), or as Markdown; with
    `steps`, only those steps (figures/parts.py), each with its number in the session."""
    total = len(session.steps)
    if steps is not None:
        session = session_part(session, steps)
    reader = registry().get(session.format)
    summary = summarize(session, reader.label if reader else session.format, page="", family="")
    renderer = Renderer(theme, "replay-site", pricing_source(book))
    part_of = total if steps is not None else None
    if markdown:
        return renderer.markdown_session(session, summary, part_of)
    return renderer.standalone_session_page(session, summary, part_of)


def compare_page(a: Session, b: Session, theme: str = "default", book: PriceBook | None = None) -> tuple[Comparison, str]:
    """Two sessions compared in one HTML file, with no links to pages that do not exist."""
    comparison = compare_sessions(a, b)
    renderer = Renderer(theme, "replay-site compare", pricing_source(book))
    return comparison, renderer.compare_page(comparison, None, None, None)
