"""Terminal escapes parsed once: styled spans, plain text, and text safe to print."""
from __future__ import annotations

from replay_site import ansi
from replay_site.ansi import Span


def test_sgr_colours_become_palette_classes():
    text = "\x1b[1;31mred\x1b[0m plain \x1b[38;5;196mx\x1b[38;2;0;0;250my\x1b[48;5;21;4mz\x1b[m"
    assert ansi.spans(text) == [
        Span("red", "ansi-bold ansi-fg-1"), Span(" plain "),
        Span("x", "ansi-fg-9"),  # 256-colour 196 is pure red: bright red (255,0,0)
        Span("y", "ansi-fg-4"),  # truecolor (0,0,250) is nearest to blue (0,0,238)
        Span("z", "ansi-underline ansi-fg-4 ansi-bg-4"),
    ]
    assert {cls for span in ansi.spans(text) for cls in (span.css or "").split()} <= set(ansi.CSS_CLASSES)


def test_osc8_links_are_kept_only_for_http():
    text = ("\x1b]8;;https://example.org/a\x07site\x1b]8;;\x07 "
            "\x1b]8;;javascript:alert(1)\x1b\\js\x1b]8;;\x1b\\ \x1b]8;;file:///etc/passwd\x07f\x1b]8;;\x07")
    assert ansi.spans(text) == [Span("site", None, "https://example.org/a"), Span(" js f")]


def test_other_sequences_are_removed_and_controls_made_visible():
    text = "\x1b]0;evil title\x07\x1b]52;c;cm0gLXJmIC8=\x07\x1b[2J\x1b[H\x1b7ok\x00\x07\x7f\x1b"
    assert ansi.plain(text) == "ok\u2400\u2407\u2421\u241b"


def test_carriage_returns_and_backspaces_apply_like_a_terminal():
    assert ansi.plain("10%\r20%\r100%\ndone") == "100%\ndone"
    assert ansi.plain("abcdef\rXY") == "XYcdef"
    assert ansi.plain("ab\bc") == "ac"
    assert ansi.plain("line\r\nnext") == "line\nnext"


def test_reordering_and_invisible_characters_are_shown_not_obeyed():
    text = "safe\u202eexe.txt\u200b\U000e0041\u2066x"
    assert ansi.plain(text) == "safe\u27e6U+202E\u27e7exe.txt\u27e6U+200B\u27e7\u27e6U+E0041\u27e7\u27e6U+2066\u27e7x"
    assert ansi.plain("family \U0001f468\u200d\U0001f469") == "family \U0001f468\u200d\U0001f469"  # joiners kept


def test_text_without_controls_is_returned_as_is():
    text = "plain <b>text</b> & more\n\ttabbed"
    assert ansi.plain(text) is text and ansi.spans(text) == [Span(text)]
    assert ansi.spans("") == []


def test_for_terminal_escapes_controls_and_keeps_colours_only_for_a_tty():
    text = "a\x1b[31mred\x1b[0m\x1b]0;title\x07\r\n\u202eb"
    assert ansi.for_terminal(text, color=False) == "a\\x1b[31mred\\x1b[0m\\x1b]0;title\\x07\n\\u202eb"
    assert ansi.for_terminal(text, color=True) == "a\x1b[31mred\x1b[0m\\x1b]0;title\\x07\n\\u202eb"


def test_long_outputs_with_many_escapes_stay_linear():
    text = "\x1b[32mok\x1b[0m line\n" * 50_000
    shown = ansi.plain(text)
    assert shown == "ok line\n" * 50_000


def test_plain_is_the_text_of_the_spans():
    # plain() takes a faster path than the styled screen; both must show the same characters.
    samples = ["abcdef\rXY", "ab\bc", "a\r\nb", "x\x00\ry", "\x1b[31mab\x1b[0m\rc", "10%\r100%\n\x1b]8;;https://a.b\x07l\x1b]8;;\x07",
               "\u202e\x1b[1mB\x1b[22m\x1b", "tab\there\x07\r\x7fz", "\x9b31mC1 csi\x9d0;t\x9c"]
    for sample in samples:
        assert ansi.plain(sample) == "".join(span.text for span in ansi.spans(sample)), repr(sample)


def test_has_special_answers_as_the_regex_does_on_each_path():
    # ansi.has_special skips the regex for texts C string methods can answer for: printable
    # ones, ASCII ones, and non-ASCII ones printable but for line breaks and tabs. Texts
    # that are unprintable for other reasons (a no-break space, a line separator, private
    # use) must still be asked of the regex, and each special character found on every path.
    texts = ["plain", "two\nlines\tand a tab", "ascii \x1b[1m bold", "ascii \x07 bell", "ascii \x7f",
             "é→ printable", "é→\nlines\tand a tab", "é\u00a0no-break\n", "é\u2028line separator", "é\ue000 private",
             "é\n\x1b[31m red", "é\n\u202e reversed", "é\n\x85 next line", "é\n\u200b zero width", "é\n\ufeff bom",
             "é\n\U000e0041 tag", "é\n\u200d joiner kept"]
    for text in texts:
        assert ansi.has_special(text) == (ansi._SPECIAL.search(text) is not None), repr(text)
    assert [ansi.has_special(text) for text in texts].count(True) == 9
