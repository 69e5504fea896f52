"""Jinja2 rendering of the model: the renderer's filters and page functions (its environment:
environment.py; where its theme is: themes.py).

The renderer knows only the model and summaries, never a log format; it does no
file I/O — it gives out page text and the side files (full outputs) the site
writer should put beside it, a page at a time.
"""
from __future__ import annotations

import base64
import io
import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import orjson
from markupsafe import Markup

from replay_site.version import __version__
from replay_site.figures.compare import Comparison
from replay_site.figures.inputs import Inputs
from replay_site.figures.site_files import ChangedFile
from replay_site.figures.summary import SessionSummary
from replay_site.figures.totals import SiteFigures
from replay_site.model import Session, Step
from replay_site.pages import charts, formatting, highlight, markdown_export, paging, views, views_audit, views_index, views_steps
from replay_site.pages.environment import template_environment
from replay_site.pages.themes import theme_search_path

# Texts longer than this are cut on the page; the full text is written beside it.
OUTPUT_LIMIT = views_steps.FIELD_LIMIT
# Inline images larger than this (base64 characters) are replaced by a note.
IMAGE_LIMIT = 2_000_000
# A site's pages admit only the site's own files: no inline script, nothing from a host.
SITE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'"
# The same policy as a header, for hosts that read `_headers` (a <meta> policy cannot set
# frame-ancestors, and a header also covers the JSON and search files).
HEADERS = (f"/*\n  Content-Security-Policy: {SITE_CSP}; frame-ancestors 'none'\n"
           "  X-Content-Type-Options: nosniff\n  Referrer-Policy: no-referrer\n")


@dataclass
class Link:
    title: str
    href: str
    summary: SessionSummary | None = None  # figures shown beside links to child sessions


@dataclass
class PageNav:
    """Where a session page sits in the site: its own path and its neighbours'."""

    slug: str
    prev: Link | None = None
    next: Link | None = None
    parent: Link | None = None
    children: dict[str, Link] = field(default_factory=dict)  # by session id

    @property
    def page(self) -> str:
        return f"sessions/{self.slug}.html"


class Renderer:
    def __init__(self, theme: str = "default", site_title: str = "Agent sessions", pricing: str = ""):
        self.search_path = theme_search_path(theme)
        self.env = template_environment(self.search_path)
        self.env.filters.update(formatting.FILTERS)
        self.env.filters["markdown"] = highlight.markdown
        self.env.filters["highlight"] = highlight.code
        self.env.globals["cost_text"] = formatting.cost
        self.env.globals["step_link"] = _compare_step_link
        self.env.globals.update(site_title=site_title, version=__version__, pricing=pricing, image_limit=IMAGE_LIMIT, inline=None,
                                site_csp=SITE_CSP)

    def static_files(self) -> dict[str, bytes]:
        """assets/ contents: the theme's static files (overrides first) plus pygments' CSS; and
        `_headers`, which static hosts (Netlify, Cloudflare Pages) serve the pages with."""
        files: dict[str, bytes] = {"assets/pygments.css": highlight.stylesheet().encode(), "_headers": HEADERS.encode()}
        for theme in reversed(self.search_path):
            static = theme / "static"
            for path in sorted(static.rglob("*")) if static.is_dir() else []:
                if path.is_file() and not path.name.startswith("."):
                    files[f"assets/{path.relative_to(static).as_posix()}"] = path.read_bytes()
        return files

    def session_pages(self, whole: views.SessionDigest, pages: Iterable[list[Step]], nav: PageNav) -> Iterator[tuple[str, str]]:
        """The files of one session as (site path, text), one page at a time as its steps come
        (`pages`: each page's steps, paging.py), each page followed by the side files of the
        texts cut on it. The first page is `sessions/<slug>.html`, the others
        `sessions/<slug>/<k>.html`; nothing of a page is kept once it is given out."""
        layout = views.Layout(nav.slug, whole.steps)
        side = views.SideFiles(nav.slug, OUTPUT_LIMIT)
        shard = f"assets/search/{nav.slug}.js"
        for number, html in self._session_pages(whole, pages, nav, layout, side, shard):
            yield layout.path(number), html
            for name in sorted(side.files):
                yield name, side.files.pop(name)

    def failed_page(self, summary: SessionSummary, nav: PageNav, detail: str) -> str:
        """What stands in for a session page the renderer failed on: its figures, the error,
        and the links, so that the site around it stays whole."""
        return self.env.get_template("failed.html").render(root="../", summary=summary, nav=nav, detail=detail)

    def index_pages(self, summaries: list[SessionSummary], figures: SiteFigures, comparisons: list[Link] | tuple = (),
                    inputs: Inputs | None = None, rows: Fragments | None = None) -> Iterator[tuple[str, str]]:
        """The index, a page of paging.INDEX_ROWS sessions at a time (paging.index_path), each
        with the totals over all of them and the account of what was read; the charts and the
        project breakdown only on the first (they are a large part of a page, and the same on
        every one). Each session's row is rendered on its own (_index_row.html), or taken from
        `rows` when a build rendered it from the same summary."""
        template = self.env.get_template("index.html")
        day_charts = charts.day_charts(figures.by_day)
        pages = paging.index_page_count(len(summaries))
        projects, more_projects = views_index.index_projects(figures.by_project)
        has_project = any(summary.project for summary in summaries)
        inputs_line = formatting.inputs_line(inputs) if inputs else None  # issue 29: the Inputs whole (prompts-only sessions)
        for page in range(1, pages + 1):
            shown = summaries[(page - 1) * paging.INDEX_ROWS:page * paging.INDEX_ROWS]
            yield paging.index_path(page), template.render(
                root="",
                # a page's rows rendered for it, not every page's first (3,000 sessions: ~6 MiB of rows)
                row_html=[self._fragment(rows, "_index_row.html", [has_project, summary], lambda summary=summary: {"s": summary,
                          "has_project": has_project}) for summary in shown],
                summaries=summaries,  # every session: a theme's own index may use them
                has_project=has_project,
                projects=projects if page == 1 else [],
                more_projects=more_projects if page == 1 else "",
                rows=shown,
                page_links=views_index.index_page_links(page, pages),
                rows_label=views_index.index_rows_label(page, len(summaries)),
                totals=figures,
                inputs=inputs_line,
                hints=inputs.hints if inputs else [],  # issue 29: what to raise in the agents' settings (model.Hint)
                day_charts=day_charts if page == 1 else [],
                comparisons=comparisons,
            )

    def files_page(self, files: list[ChangedFile], rows: Fragments | None = None) -> bytes:
        """files.html: every file a session changed, with its sessions and steps; each file's row
        rendered on its own (_files_row.html), or taken from `rows` when a build rendered it from the same inputs.
        Encoded as it is rendered: a row lists every session that changed its file, so the page
        can be the size of its rows (the large benchmark corpus: 8 MB as text, which it never is whole)."""
        row_html = _Rows(len(files), (self._fragment(rows, "_files_row.html", views_audit.row_inputs(entry),
                                                     lambda entry=entry: {"row": views_audit.files_page_row(entry)}) for entry in files))
        page = io.BytesIO()
        for piece in self.env.get_template("files.html").generate(root="", row_html=row_html):
            page.write(piece.encode())
        return page.getvalue()

    def _fragment(self, kept: Fragments | None, name: str, inputs: object, context: Callable[[], dict]) -> Markup:
        """Template `name` rendered with `context()`, whose every value comes from `inputs`
        (plain data, with dataclasses): from `kept` when it holds a rendering of the same
        inputs, which are all a key needs (`kept` itself is only ever of this code, theme and settings)."""
        if kept is None:
            return Markup(self.env.get_template(name).render(**context()))
        key = hashlib.sha1(name.encode() + b"\0" + orjson.dumps(inputs)).hexdigest()
        html = kept.get(key)
        if html is None:
            html = self.env.get_template(name).render(**context())
        kept[key] = html
        return Markup(html)

    def compare_page(self, comparison: Comparison, link_a: str | None, link_b: str | None, root: str | None) -> str:
        """Two sessions side by side. `root` None means a standalone file: the CSS goes inline
        and links are only those given (a session without a page gets plain step numbers)."""
        return self.env.get_template("compare.html").render(
            root=root or "",
            comparison=comparison,
            link_a=link_a,
            link_b=link_b,
            inline=self.inline_assets() if root is None else None,
        )

    def review_page(self, rows: list, summary: str, decisions_file: str) -> str:
        """The redaction review (redact/review.py): a local file, CSS inline."""
        return self.env.get_template("redactions.html").render(root="", rows=rows, summary=summary,
                                                                decisions_file=decisions_file, inline=self.inline_assets())

    def standalone_session_page(self, session: Session, summary: SessionSummary, part_of: int | None = None) -> str:
        """One session as a single HTML file to attach to a bug report: CSS and JS inline,
        every step on one page, texts uncut (there is no folder beside it), no links to
        pages that are not in it. `part_of`: the session is a part (figures/parts.py) of a
        session of that many steps."""
        first = session.steps[0].number if session.steps else 1
        layout = views.Layout("", len(session.steps), single=True, first=first)
        side = views.SideFiles("", None)
        whole = views.digest(session, summary, standalone=True)
        if part_of is not None:
            whole.header.part = views.part_note(range(first, first + len(session.steps)), part_of)
        ((_, html),) = self._session_pages(whole, [session.steps], None, layout, side, None, self.inline_assets())
        return html

    def _session_pages(self, whole: views.SessionDigest, pages: Iterable[list[Step]], nav: PageNav | None, layout: views.Layout,
                       side: views.SideFiles, shard: str | None, inline: InlineAssets | None = None) -> Iterator[tuple[int, str]]:
        template, steps_template = self.env.get_template("session.html"), self.env.get_template("steps.html")
        number, running = 0, formatting.RunningCost(whole.index.cost_before(1))
        for number, steps in enumerate(pages, start=1):
            page = views.page_view(whole, layout, number, steps, nav, side, shard, running)
            # The steps are rendered on their own and given to the page whole: included, each
            # of the million pieces of their text passed through three generators of the page.
            steps_html = Markup(steps_template.render(page=page))
            yield number, template.render(root=page.root if nav else "", page=page, slug=nav.slug if nav else "", inline=inline,
                                          steps_html=steps_html)
        if number != layout.pages:
            raise ValueError(f"{layout.slug or 'the session'} came with pages of steps up to {number}, not {layout.pages}")

    def markdown_session(self, session: Session, summary: SessionSummary, part_of: int | None = None) -> str:
        """One session (or part) as Markdown, for trackers that take it (session.md)."""
        first = session.steps[0].number if session.steps else 1
        part = views.part_note(range(first, first + len(session.steps)), part_of) if part_of is not None else None
        return self.env.get_template("session.md").render(doc=markdown_export.document(session, summary, part))

    def inline_assets(self) -> InlineAssets:
        """The theme's CSS (with pygments') and JS for inline <style> and <script> blocks.
        Markup, because entity-escaping would break selectors like `a > b`; these are our own
        files, and nothing in them may close the element early."""
        files = self.static_files()
        css = "\n".join(files[name].decode() for name in ("assets/style.css", "assets/pygments.css") if name in files)
        # app.js loads session-ui.js beside it on a site; a single file holds both, in order
        js = "\n".join(files[name].decode() for name in ("assets/app.js", "assets/session-ui.js") if name in files)
        if "</" in css or "</" in js:
            raise ValueError("theme CSS and JS must not contain '</' (it would end the inline element)")
        return InlineAssets(Markup(css), Markup(js), _sha256(css), _sha256(js))


class _Rows:
    """Rows rendered as the template takes them, not all first: the rows of a 20,000-step
    session's files.html (4,000 files) held 2.2 MB beside the page."""

    def __init__(self, count: int, rows: Iterator[Markup]) -> None:
        self._count, self._rows = count, rows

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Markup]:
        return self._rows


class Fragments(Protocol):
    """Rendered rows kept between builds, by a digest of their template and inputs (store/fragments.py)."""

    def get(self, key: str) -> str | None: ...

    def __setitem__(self, key: str, html: str) -> None: ...


@dataclass
class InlineAssets:
    css: Markup
    js: Markup
    style_hash: str  # base64 sha256, for the page's Content-Security-Policy
    script_hash: str


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def _compare_step_link(first_page: str, step: int) -> str:
    """From a comparison page (compare/<a>--<b>.html), a link to step `step` of the session
    whose first page is `first_page` (../sessions/<slug>.html), on the page that holds it."""
    return paging.step_href(Path(first_page).stem, step, "compare/page.html")

