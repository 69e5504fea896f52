"""Safe markdown and code highlighting: the only places third-party HTML enters a page.

markdown-it runs with the `js-default` preset (raw HTML escaped, javascript:/vbscript:/file:
links dropped) and images disabled, because an image in a log would make the page fetch a
URL from some host; pygments escapes the code it highlights.
"""
from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup, escape
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

# Highlighting is superlinear on pathological input; past this size code is shown plain.
HIGHLIGHT_LIMIT = 200_000

_FORMATTER = HtmlFormatter(nowrap=True)


def _lexer(language: str | None, filename: str | None = None):
    try:
        if language:
            return get_lexer_by_name(language)
        if filename:
            return get_lexer_for_filename(filename)
    except ClassNotFound:
        pass
    return None


def code(text: str, language: str | None = None, filename: str | None = None) -> Markup:
    """Highlighted code as escaped HTML spans (the template wraps it in <pre>)."""
    lexer = _lexer(language, filename) if len(text) <= HIGHLIGHT_LIMIT else None
    if lexer is None:
        return escape(text)
    return Markup(pygments_highlight(text, lexer, _FORMATTER))


def _fence(text: str, language: str, _attrs) -> str:
    lexer = _lexer(language.split()[0] if language else None)
    if lexer is None or len(text) > HIGHLIGHT_LIMIT:
        return ""  # markdown-it escapes it itself
    return f'<pre class="highlight"><code>{pygments_highlight(text, lexer, _FORMATTER)}</code></pre>'


SAFE_LINK_SCHEMES = ("http://", "https://", "mailto:")


def _is_linkable(url: str) -> bool:
    """Only absolute web and mail links become links. A relative path in a log points into
    the agent's workspace, not this site, and `<budget:x>`-style tags look like autolinks:
    both stay visible as plain text instead of becoming broken or unsafe links."""
    return url.strip().lower().startswith(SAFE_LINK_SCHEMES)


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    md = MarkdownIt("js-default", {"highlight": _fence})
    md.disable("image")
    md.validateLink = _is_linkable
    return md


def markdown(text: str | None) -> Markup:
    return Markup(_markdown().render(text or ""))


def diff_rows(diff: str) -> list[tuple[str, str]]:
    """(css class, line) pairs of a unified diff, for the template to colour."""
    rows = []
    for line in (diff or "").splitlines():
        if line.startswith("@@"):
            kind = "hunk"
        elif line.startswith(("+++", "---")):
            kind = "file"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "ctx"
        rows.append((kind, line))
    return rows


LIGHT_STYLE, DARK_STYLE = "xcode", "github-dark"  # every token colour of each passes WCAG AA on its background
DARK_SELECTORS = ('html[data-theme="dark"] .highlight', 'html:not([data-theme="light"]) .highlight')


def stylesheet() -> str:
    """Code colours for both themes: the light style everywhere, the dark one under the same
    selectors as the theme's dark colours (system dark unless the reader chose light, or the
    reader chose dark). Every token class of the light style is also set by the dark one, so
    no light colour is left on a dark background."""
    dark = HtmlFormatter(style=DARK_STYLE)
    chosen = dark.get_background_style_defs(DARK_SELECTORS[0]) + dark.get_token_style_defs(DARK_SELECTORS[0])
    system = dark.get_background_style_defs(DARK_SELECTORS[1]) + dark.get_token_style_defs(DARK_SELECTORS[1])
    return "\n".join([
        HtmlFormatter(style=LIGHT_STYLE).get_style_defs(".highlight"),
        "\n".join(chosen),
        "@media (prefers-color-scheme: dark) {",
        "\n".join(system),
        "}",
        "",
    ])
