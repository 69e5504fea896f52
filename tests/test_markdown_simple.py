"""Simple paragraphs (words, `code` spans, **bold** words) are cut into their parts
(highlight.simple_markdown) and written by the theme's simple_prose macro without markdown-it:
the HTML must be the very bytes markdown-it writes, and every other text must still go to the parser."""
from __future__ import annotations

import random

import pytest

from replay_site.pages import highlight
from replay_site.pages.render import Renderer

_SIMPLE_PROSE = Renderer().env.get_template("macros.html").module.simple_prose


def written(text: str) -> str | None:
    """What a page holds for `text` when it takes the shortcut, None when the parser writes it."""
    paragraphs = highlight.simple_markdown(text)
    return None if paragraphs is None else str(_SIMPLE_PROSE(paragraphs))

# Characters and pieces that each take a text towards or away from what the shortcut takes.
PIECES = [*"ab Z09 .,:;'\"()!?-+=$%@^{}/", "`", "`", "**", "**", "*", "_", "\n", "\n\n", "  ", " ", "&", "<", "\t",
          "\xa0", "1. ", "- ", "#", "é", "\u3000", "\\", "[", "-", "-", "=", "1)", "2.", "\r", "\x00", "\x0c", "***", "~"]


def test_random_texts_the_shortcut_takes_render_as_markdown_it_renders_them():
    rng, parser, taken = random.Random(20), highlight._markdown(), 0
    for _ in range(20_000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30)))
        simple = written(text)
        if simple is not None:
            assert simple == parser.render(text), repr(text)
            taken += 1
    assert taken > 1_000


def test_texts_of_the_examples_and_the_corpus_render_as_markdown_it_renders_them(data, corpus):
    from replay_site.discover import discover, pick_readers
    from replay_site.readers import registry

    parser, taken = highlight._markdown(), 0
    for source in discover([data, corpus], pick_readers("auto"), []):
        for top in registry()[source.format].read(source):
            for session in top.walk():
                for text in (t for step in session.steps for t in (step.text, step.thinking) if t):
                    simple = written(text)
                    assert simple is None or simple == parser.render(text), text[:200]
                    taken += written(text) is not None
    assert taken > 20


@pytest.mark.parametrize("text", ["Step 1: I'll use **Bash** on `module_1`.", "a `<b> & \"c\"` d", "x**y**z", "(**Bold**)",
                                  "one\ntwo `x`\n\n\nthree **y**", "`a**b**c` and **d e**", ""])
def test_simple_paragraphs_take_the_shortcut(text):
    assert written(text) == highlight._markdown().render(text)


@pytest.mark.parametrize("text", ["-- -", "a\n---", "`` a ``", "` a `", "** a**", "**a **", "*a*", "a_b_", "**a*b**", "- item",
                                  " indented", "trailing ", "line  \nbreak", "a\r\nb", "`a\nb`", "[link](x)", "a &amp; b",
                                  "1. first", "> quote", "**`a`**", "unclosed `code", "**unclosed"])
def test_anything_else_goes_to_the_parser(text):
    assert highlight.simple_markdown(text) is None
