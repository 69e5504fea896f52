"""Comparison pages inside a built site (`build --compare A:B`) and the standalone page.

A and B are log paths or session ids (or unique id prefixes). The site builder offers every
session it reads to a `ComparePicker`, which keeps only those a pair names, so a build
still holds one family in memory at a time. A path outside the site's sources is read on
its own; its page does not exist, so its step numbers are shown without links.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from replay_site.discover import DiscoveryError
from replay_site.figures.compare import Comparison, compare_sessions
from replay_site.figures.summary import page_slug
from replay_site.model import Session
from replay_site.pages.render import Link, Renderer
from replay_site.readers import SessionSource


@dataclass
class _Found:
    session: Session
    slug: str
    in_site: bool = True


def split_pair(text: str) -> list[tuple[str, str]]:
    """Every way to read `A:B`. Ids may hold ':' themselves (rlm child runs are
    `parent:child`), so each colon is a candidate; the first that resolves wins."""
    return [(text[:i], text[i + 1:]) for i, ch in enumerate(text) if ch == ":" and 0 < i < len(text) - 1]


@dataclass
class ComparePicker:
    pairs: list[str]
    by_path: dict[Path, _Found] = field(default_factory=dict)
    by_id: dict[str, list[_Found]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for pair in self.pairs:
            if not split_pair(pair):
                raise DiscoveryError(f"--compare {pair!r}: expected A:B (two log paths or session ids)")
        self.halves = {half for pair in self.pairs for split in split_pair(pair) for half in split}
        self.paths = {Path(h).resolve(): h for h in self.halves if Path(h).exists()}

    def offer(self, source: SessionSource, session: Session, slug: str, top: bool) -> None:
        """Keep `session` if a pair names it: by id (prefix), or as the first session of a named file."""
        found = _Found(session, slug)
        if top:
            for path in (source.path.resolve(), *(p.resolve() for p in source.files)):
                if path in self.paths and path not in self.by_path:
                    self.by_path[path] = found
        for half in self.halves:
            if session.id.startswith(half):
                self.by_id.setdefault(half, []).append(found)

    def merge(self, other: ComparePicker) -> None:
        """Take what a picker in a worker kept; merged in source order, as if offered here."""
        for path, found in other.by_path.items():
            self.by_path.setdefault(path, found)
        for half, found in other.by_id.items():
            self.by_id.setdefault(half, []).extend(found)

    def resolve(self, half: str, load) -> _Found | None:
        """The session `half` names: a path in the site, an id in the site, else a path read
        on its own (`load`); None when nothing or more than one session matches."""
        if Path(half).exists():
            found = self.by_path.get(Path(half).resolve())
            if found:
                return found
            session = load(half)
            return _Found(session, page_slug(session, session.source), in_site=False)
        matches = self.by_id.get(half, [])
        exact = [f for f in matches if f.session.id == half]
        chosen = exact or matches
        return chosen[0] if len(chosen) == 1 else None

    def pages(self, load) -> list[tuple[str, Comparison, _Found, _Found]]:
        """(page path, comparison, A, B) for every pair, in the order given."""
        found = []
        for pair in self.pairs:
            for a_ref, b_ref in split_pair(pair):
                a, b = self.resolve(a_ref, load), self.resolve(b_ref, load)
                if a and b:
                    found.append((f"compare/{a.slug}--{b.slug}.html", compare_sessions(a.session, b.session), a, b))
                    break
            else:
                raise DiscoveryError(f"--compare {pair!r}: no single session in this build matches both sides "
                                     "(give log paths, or ids / unique id prefixes of built sessions)")
        return found


def write_comparisons(picker: ComparePicker, renderer: Renderer, writer, load) -> list[Link]:
    """Write compare/<slugA>--<slugB>.html pages; return the index's links to them."""
    links: dict[str, Link] = {}
    for page, comparison, a, b in picker.pages(load):
        if page in links:  # the same pair named twice
            continue
        html = renderer.compare_page(comparison, _link(a), _link(b), "../")
        writer.write(page, html)
        links[page] = Link(f"{comparison.a.title} vs {comparison.b.title}", page)
    return list(links.values())


def _link(found: _Found) -> str | None:
    return f"../sessions/{found.slug}.html" if found.in_site else None
