"""Safe markdown and code highlighting: the only places third-party HTML enters a page.

markdown-it runs with the `js-default` preset (raw HTML escaped, javascript:/vbscript:/file:
links dropped) and images disabled, because an image in a log would make the page fetch a
URL from some host; pygments escapes the code it highlights.
"""
from __future__ import annotations

import re
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


_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def diff_rows(diff: str) -> list[tuple[str, str]]:
    """(css class, line) pairs of a unified diff, for the template to colour. Inside a hunk a
    line starting `---`/`+++` is a removed/added line whose text begins with `--`/`++`; it is
    a file header only outside hunks (a hunk ends when its line counts are used up)."""
    rows = []
    old_left = new_left = 0
    open_ended = False  # a hunk header without counts runs to the next header
    for line in (diff or "").splitlines():
        in_hunk = open_ended or old_left > 0 or new_left > 0
        if line.startswith("@@"):
            kind = "hunk"
            counts = _HUNK.match(line)
            open_ended = counts is None
            old_left = int(counts.group(1) or 1) if counts else 0
            new_left = int(counts.group(2) or 1) if counts else 0
        elif not in_hunk and line.startswith(("+++", "---")):
            kind = "file"
        elif line.startswith("+"):
            kind, new_left = "add", new_left - 1
        elif line.startswith("-"):
            kind, old_left = "del", old_left - 1
        elif line.startswith("\\"):  # "\ No newline at end of file" belongs to the line above
            kind = "ctx"
        else:
            kind, old_left, new_left = "ctx", old_left - 1, new_left - 1
        rows.append((kind, line))
    return rows


def stylesheet() -> str:
    return _FORMATTER.get_style_defs(".highlight")
