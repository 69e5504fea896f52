"""Simple paragraphs (words, `code` spans, **bold** words) are written without markdown-it
(highlight._simple_markdown): the HTML must be the very bytes markdown-it writes, and every
other text must still go to the parser."""
from __future__ import annotations

import random

import pytest

from replay_site.pages import highlight

# Characters and pieces that each take a text towards or away from what the shortcut takes.
PIECES = [*"ab Z09 .,:;'\"()!?-+=$%@^{}/", "`", "`", "**", "**", "*", "_", "\n", "\n\n", "  ", " ", "&", "<", "\t",
          "\xa0", "1. ", "- ", "#", "é", "\u3000", "\\", "[", "-", "-", "=", "1)", "2.", "\r", "\x00", "\x0c", "***", "~"]


def test_random_texts_the_shortcut_takes_render_as_markdown_it_renders_them():
    rng, parser, taken = random.Random(20), highlight._markdown(), 0
    for _ in range(20_000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30)))
        simple = highlight._simple_markdown(text)
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
                    assert str(highlight.markdown(text)) == parser.render(text), text[:200]
                    taken += highlight._simple_markdown(text) is not None
    assert taken > 20


@pytest.mark.parametrize("text", ["Step 1: I'll use **Bash** on `module_1`.", "a `<b> & \"c\"` d", "x**y**z", "(**Bold**)",
                                  "one\ntwo `x`\n\n\nthree **y**", "`a**b**c` and **d e**", ""])
def test_simple_paragraphs_take_the_shortcut(text):
    assert highlight._simple_markdown(text) == highlight._markdown().render(text)


@pytest.mark.parametrize("text", ["-- -", "a\n---", "`` a ``", "` a `", "** a**", "**a **", "*a*", "a_b_", "**a*b**", "- item",
                                  " indented", "trailing ", "line  \nbreak", "a\r\nb", "`a\nb`", "[link](x)", "a &amp; b",
                                  "1. first", "> quote", "**`a`**", "unclosed `code", "**unclosed"])
def test_anything_else_goes_to_the_parser(text):
    assert highlight._simple_markdown(text) is None
