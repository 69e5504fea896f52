"""Safe markdown and code highlighting: the only places third-party HTML enters a page.

markdown-it runs with the `js-default` preset (raw HTML escaped, javascript:/vbscript:/file:
links dropped), and an image becomes a link labelled with its alt text, because an image in a
log would make the page fetch a URL from some host; a link to a file of the agent's workspace
(`[a.ts](/src/a.ts:9)`) becomes that path in code; pygments escapes the code it highlights.
"""
from __future__ import annotations

import re
from fnmatch import fnmatchcase
from functools import cache, lru_cache

from typing import TYPE_CHECKING

from markupsafe import Markup, escape

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_inline import StateInline
    from pygments.formatters import HtmlFormatter

# Highlighting costs far more than escaping and is superlinear on pathological input; past
# this size code is shown plain.
HIGHLIGHT_LIMIT = 20_000


# pygments (and our lexing on top of it, ~1 MiB of the build's memory) is imported the first time code is
# highlighted, not with this module: a build's processes read and redact every log before any
# page is rendered, and what the build process imports before its workers fork for that stays
# in the memory of both until they end.
@cache
def _formatter() -> HtmlFormatter:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)


def _highlighted(text: str, lexer) -> str:
    from pygments import highlight

    return highlight(text, lexer, _formatter())


# A file name is looked up among pygments' own lexers alone: get_lexer_for_filename loads every
# plugin other packages register (entry points), as get_lexer_by_name does only for a language
# pygments does not know itself, and IPython's (which claim no file name) import IPython, jedi
# and prompt_toolkit: ~25-65 MiB and 0.4-1.8 s of a core in each process that renders pages. A
# language only a plugin knows (gptme's `ipython` blocks) still finds it by name.


@cache
def _lexer_by_name(language: str):
    """One lexer per language per process: looking one up scans pygments' registry."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    from replay_site.pages.lexing import quick

    try:
        return quick(get_lexer_by_name(language))
    except ClassNotFound:
        return None


@cache
def _lexer_by_suffix(suffix: str):
    """get_lexer_for_filename's choice among pygments' own lexers whose file-name patterns
    match: the highest priority, an exact name above a pattern, then the class name."""
    from pygments.lexers import LEXERS, find_lexer_class

    from replay_site.pages.lexing import quick

    file_name = "file" + suffix
    matches = [(find_lexer_class(name), pattern) for _module, name, _aliases, patterns, _mimetypes in LEXERS.values()
               for pattern in patterns if _name_matches(file_name, pattern)]
    if not matches:
        return None
    best, _ = max(matches, key=lambda match: (match[0].priority + (0.5 if "*" not in match[1] else 0), match[0].__name__))
    return quick(best())


_WILDCARD = re.compile(r"[*?\[]")


def _name_matches(name: str, pattern: str) -> bool:
    """fnmatchcase, but for the shapes of nearly all of pygments' ~930 patterns, a name
    (`Makefile`) and `*` with a name's end (`*.py`), told without a regex: fnmatchcase
    compiles one for each pattern in every process that looks up a file name (~30 ms)."""
    if not _WILDCARD.search(pattern):
        return name == pattern
    if pattern[0] == "*" and not _WILDCARD.search(pattern, 1):
        return name.endswith(pattern[1:])
    return fnmatchcase(name, pattern)


def _lexer(language: str | None, filename: str | None = None):
    if language:
        return _lexer_by_name(language.lower())
    if filename and "." in filename.rsplit("/", 1)[-1]:
        return _lexer_by_suffix("." + filename.rsplit(".", 1)[-1].lower())
    return None


def code(text: str, language: str | None = None, filename: str | None = None) -> Markup:
    """Highlighted code as escaped HTML spans (the template wraps it in <pre>)."""
    lexer = _lexer(language, filename) if len(text) <= HIGHLIGHT_LIMIT else None
    if lexer is None:
        return escape(text)
    return Markup(_highlighted(text, lexer))


def _fence(text: str, language: str, _attrs) -> str:
    lexer = _lexer(language.split()[0] if language else None)
    if lexer is None or len(text) > HIGHLIGHT_LIMIT:
        return ""  # markdown-it escapes it itself
    return f'<pre class="highlight"><code>{_highlighted(text, lexer)}</code></pre>'


SAFE_LINK_SCHEMES = ("http://", "https://", "mailto:")


def is_linkable(url: str) -> bool:
    """Only absolute web and mail links become links. A relative path in a log points into
    the agent's workspace, not this site, and `<budget:x>`-style tags look like autolinks:
    both stay visible as plain text instead of becoming broken or unsafe links."""
    return url.strip().lower().startswith(SAFE_LINK_SCHEMES)


def _images_as_links(state: StateCore) -> None:
    """Each `![alt](url)` as a link to url labelled with its alt text (the url when there is
    none): the reader sees where the image is, and the page never loads it. Its url passed
    the same check as any link's when it was parsed."""
    from markdown_it.token import Token

    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        for token in block.children:
            if token.type != "image":
                children.append(token)
                continue
            attrs = {"href": str(token.attrGet("src") or "")}
            if token.attrGet("title"):
                attrs["title"] = str(token.attrGet("title"))
            label = token.children or [Token("text", "", 0, content=attrs["href"])]
            children += [Token("link_open", "a", 1, attrs=attrs), *label, Token("link_close", "a", -1)]
        block.children = children


# A link target that names a file of the agent's workspace ("/Users/x/src/a.ts:99", "./b.py",
# "src/c.py"): no scheme, an absolute or relative path.
_LOCAL_PATH = re.compile(r"^(?:[/~]|\.{1,2}/|[A-Za-z]:[\\/])|^[\w.@+-]+/")


def _local_file_link(state: StateInline, silent: bool) -> bool:
    """`[label](/path/to/file.ts:99)`, as agents (Codex) cite the files they changed, as the
    path in code: the link would point into the agent's machine (so is_linkable refuses it),
    and left as raw text its `__tests__` would read as emphasis."""
    from markdown_it.helpers import parseLinkDestination, parseLinkLabel

    start, end = state.pos, state.posMax
    if state.src[start] != "[":
        return False
    label_end = parseLinkLabel(state, start, True)
    at = label_end + 1
    if label_end < 0 or at >= end or state.src[at] != "(":
        return False
    at += 1
    while at < end and state.src[at] in " \t":
        at += 1
    found = parseLinkDestination(state.src, at, end)
    target = found.str if found.ok else ""
    if not target or is_linkable(target) or "://" in target or not _LOCAL_PATH.match(target):
        return False
    at = found.pos
    while at < end and state.src[at] in " \t":
        at += 1
    if at >= end or state.src[at] != ")":
        return False  # a title after the path: left to the link rule
    if not silent:
        token = state.push("code_inline", "code", 0)
        token.markup, token.content = "`", target
    state.pos = at + 1
    return True


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    """The parser, imported the first time a text needs it (~10 ms of a rebuild after one
    appended turn, whose texts often need none)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("js-default", {"highlight": _fence})
    md.validateLink = is_linkable
    md.core.ruler.push("images_as_links", _images_as_links)
    md.inline.ruler.before("link", "local_file_link", _local_file_link)
    return md


def markdown(text: str | None) -> Markup:
    return Markup(_markdown().render(text or ""))


# Paragraphs of words, `code` spans and **bold** words only (an agent's one-line notes: "Now I'll
# run `pytest`."), which markdown-it renders in ~0.1-0.4 ms, are cut here into their parts, which
# steps.html writes as markdown-it would (~0.01 ms; test_markdown_simple compares). Only
# what is certain is taken: no other markdown character outside a code span; no line starting
# with a block marker, with whitespace or ending with it; no carriage return or NUL (which
# markdown-it replaces); a code span's text neither starting nor ending with whitespace, no
# backtick run longer than one; bold text starting and ending with a letter or digit (so both of
# its delimiters open and close it whatever stands around them).
_PLAIN = r"[^*_`\[\]<>#|~&\\\n]"
# A plain character at a time (not a run of them): a long line that does not match fails in linear time.
_SIMPLE_LINE = re.compile(rf"(?:{_PLAIN}|`[^`\s](?:[^`\n]*[^`\s])?`|\*\*[A-Za-z0-9](?:{_PLAIN}*[A-Za-z0-9])?\*\*)*")
_DASH_RULE = re.compile(r"^(?:-[ \t]*){3,}$", re.MULTILINE)  # "- - -", "-- -": a thematic break
_SIMPLE_PART = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*")  # in the escaped line, which escaping left the same shape


# What markdown-it escapes in text (its escapeHtml), and nothing else: not `'`, which markupsafe would.
_MARKDOWN_IT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})
SimpleLine = list[tuple[str, Markup]]  # ("", words) ("code", text) ("strong", words), each escaped as markdown-it does


def _line_parts(escaped: str) -> SimpleLine:
    parts: SimpleLine = []
    at = 0
    for found in _SIMPLE_PART.finditer(escaped):
        if found.start() > at:
            parts.append(("", Markup(escaped[at:found.start()])))
        code, bold = found.groups()
        parts.append(("code", Markup(code)) if code is not None else ("strong", Markup(bold)))
        at = found.end()
    if at < len(escaped):
        parts.append(("", Markup(escaped[at:])))
    return parts


def simple_markdown(text: str) -> list[list[SimpleLine]] | None:
    """The paragraphs of a text of simple paragraphs (above), each a list of its lines' parts;
    None for any other text."""
    if "``" in text or "\r" in text or "\0" in text:
        return None
    if _MARKDOWN_FIRST_LINE.match(text) or _MARKDOWN_LINE.search(text) or _DASH_RULE.search(text):
        return None
    paragraphs: list[list[SimpleLine]] = [[]]
    for line in text.split("\n"):
        if not line:
            if paragraphs[-1]:
                paragraphs.append([])
            continue
        if line[0].isspace() or line[-1].isspace() or not _SIMPLE_LINE.fullmatch(line):
            return None
        paragraphs[-1].append(_line_parts(line.translate(_MARKDOWN_IT_ESCAPES)))
    return [lines for lines in paragraphs if lines]


# Anything markdown would turn into markup or change: emphasis, code, links, headings,
# lists, quotes, tables, entities, escapes, indented code, hard breaks, rules.
# Checked in three parts, each fast on prose that has none: the characters (one class, which
# re scans for quickly), then the line starts (after a newline, which re also looks for
# quickly; at the very start by match), then two spaces ending a line.
_MARKDOWN_CHARACTERS = re.compile(r"[*_`\[\]<>#|~&\\]")
_LINE_START = r" {0,3}(?:[-+*]|\d{1,9}[.)]|>)(?:\s|$)| {4}|\t| {0,3}[=-]+ *$"
_MARKDOWN_FIRST_LINE = re.compile(_LINE_START, re.MULTILINE)
_MARKDOWN_LINE = re.compile(f"\n(?:{_LINE_START})", re.MULTILINE)


def has_markdown(text: str) -> bool:
    """False for plain prose, which is shown as paragraphs without running the parser."""
    return bool(_MARKDOWN_CHARACTERS.search(text) or _MARKDOWN_FIRST_LINE.match(text) or _MARKDOWN_LINE.search(text)
                or "  \n" in text or text.endswith("  "))


def paragraphs(text: str) -> list[str]:
    """Plain prose split where markdown would split it: at blank lines."""
    return [block.strip() for block in re.split(r"\n[ \t]*\n", text) if block.strip()]


LIGHT_STYLE, DARK_STYLE = "xcode", "github-dark"  # every token colour of each passes WCAG AA on its background
DARK_SELECTORS = ('html[data-theme="dark"] .highlight', 'html:not([data-theme="light"]) .highlight')


def stylesheet() -> str:
    """Code colours for both themes: the light style everywhere, the dark one under the same
    selectors as the theme's dark colours (system dark unless the reader chose light, or the
    reader chose dark). Every token class of the light style is also set by the dark one, so
    no light colour is left on a dark background."""
    from pygments.formatters import HtmlFormatter

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
