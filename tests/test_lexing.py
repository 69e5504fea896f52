"""pages/lexing.py: a lexer whose states are tried as one regex each gives pygments' own tokens."""
from __future__ import annotations

import random

import pytest
from pygments.lexer import RegexLexer, bygroups
from pygments.lexers import find_lexer_class_by_name
from pygments.lexers.markup import MarkdownLexer
from pygments.token import Keyword, Name, String, Text

from replay_site.pages import lexing
from replay_site.pages.highlight import _lexer

# Pieces of code, markup and prose, put together at random.
PIECES = ["\n", " ", "  ", "\t", "#", "##", "*", "**", "_", "__", "`", "```", "```python\n", "~~", "[", "]", "(", ")",
          "{", "}", "<", ">", "/", "\\", "'", '"', ":", ";", ",", ".", "=", "==", "-", "---", "+", "@", "!", "$", "%",
          "&", "|", "?", "0", "42", "3.14", "0x1f", "abc", "def", "class", "if", "else", "return", "import",
          "function", "var", "let", "<div>", "</div>", "<!--", "-->", "/*", "*/", "//", "é", "日本", "\r\n", "SELECT",
          "from", "True", "null", "line 0", "# note 3\n", "- item\n", "- [x] done\n", "1. one\n", "> quote\n",
          "=====\n", "[a](b)", "![i](u)", "[r]: http://x\n", "```\ncode\n```\n"]

# The lexers highlighting meets most, and some whose rules test the joining: verbose patterns with
# comments (cheetah, mako), a state whose every rule starts at a line's start (mime), states of long word lists.
LEXERS = ["markdown", "python", "bash", "json", "yaml", "diff", "javascript", "typescript", "html", "rust", "toml",
          "css", "sql", "c", "go", "cheetah", "mako", "mime", "ini"]


def texts(seed: str, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        yield "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 80)))


@pytest.mark.parametrize("alias", LEXERS)
def test_joined_states_give_pygments_tokens(alias):
    lexer = find_lexer_class_by_name(alias)()
    joined = lexing.quick(lexer)
    for text in texts(alias, 300):
        assert list(joined.get_tokens(text)) == list(lexer.get_tokens(text)), text


class _Tricky(RegexLexer):
    """Rules joining must not change: a verbose pattern ending in a comment, a group name, a
    state whose every rule starts at a line's start, a callback given its rule's own groups."""

    tokens = {
        "root": [
            (r"(?x) a+  # a run of a's", Keyword),
            (r"(?P<bee>b)(c?)", bygroups(Name, String)),
            (r"\{", Text, "lines"),
            (r".", Text),
        ],
        "lines": [(r"^x+", String), (r"^\}", Text, "#pop")],
    }


def test_joined_states_of_tricky_rules_give_pygments_tokens():
    rng = random.Random(3)
    lexer = _Tricky()
    joined = lexing.quick(lexer)
    for _ in range(2000):
        text = "".join(rng.choice(["a", "aa", "b", "bc", "c", "{", "}", "x", "\n", " "]) for _ in range(rng.randint(0, 30)))
        assert list(joined.get_tokens(text)) == list(lexer.get_tokens(text)), text
    assert all(state.joined for state in type(joined)._states.values())


def test_markdown_is_lexed_with_joined_states():
    """Highlighting's lexers are the joined ones; a Markdown file's rules within a line leave
    out those that start at a line's start."""
    lexer = _lexer(None, "notes/3.md")
    assert isinstance(lexer, MarkdownLexer) and isinstance(lexer, lexing._JoinedStates)
    root = type(lexer)._states["root"] if "root" in type(lexer)._states else lexer._state("root")
    assert root.joined and len(root._within_line[1]) < len(root._anywhere[1]) == len(root.rules)


def test_a_state_too_long_to_join_is_tried_rule_by_rule(monkeypatch):
    monkeypatch.setattr(lexing, "JOINED_AT_MOST", 0)
    lexer = find_lexer_class_by_name("markdown")()
    joined = lexing._quick_class.__wrapped__(type(lexer))()  # a class of its own: the states not yet made
    for text in texts("rule by rule", 50):
        assert list(joined.get_tokens(text)) == list(lexer.get_tokens(text)), text
    assert not any(state.joined for state in type(joined)._states.values())


def test_a_lexer_with_a_loop_of_its_own_is_left_as_it_is():
    lexer = find_lexer_class_by_name("pycon")()  # PythonConsoleLexer: not a RegexLexer's loop
    assert lexing.quick(lexer) is lexer
