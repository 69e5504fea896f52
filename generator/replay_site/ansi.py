"""Terminal output tamed: ANSI escapes parsed once, into styled spans, plain text or safe terminal text.

Tool outputs are raw terminal bytes from an untrusted log. A page must show what a terminal
would have shown (colours, progress bars overwritten by carriage returns, backspaces applied)
without obeying anything else: titles, clipboard writes (OSC 52), cursor moves and other
control sequences are dropped, lone control characters are shown as visible symbols, and
characters that reorder or hide text (bidi overrides, zero-width, Unicode tags) are shown as
their code point instead of being obeyed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import groupby

# One escape sequence: CSI (ESC [), string sequences (OSC, DCS, SOS, PM, APC) ended by BEL or
# ST — unterminated ones swallow the rest of their line, as a terminal waits for the end — and
# the short two-character escapes (ESC 7, ESC ( B, ...). The one-byte C1 forms (U+009B, U+009D…)
# are not obeyed: in UTF-8 text they are characters a log can use to hide what follows them,
# so they are shown as visible marks like other controls.
_ESCAPE = re.compile(
    r"\x1b\[(?P<csi_params>[0-?]*)[ -/]*(?P<csi_final>[@-~])"
    r"|\x1b[\]PX^_](?P<string>[^\x07\x1b\n]*)(?:\x07|\x1b\\|(?=\n)|\Z)"
    r"|\x1b[ -/]*[0-~]"
)
# Anything that needs more than copying: escapes, C0/C1 controls, DEL and the invisible or
# reordering characters listed in _INVISIBLE.
_SPECIAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e"
                      "\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]")
# Zero-width joiners (U+200C/D) are kept: emoji sequences and several scripts need them.
_PLAIN_ASCII = bytes(range(0x20, 0x7f)) + b"\t\n"
_ASCII_SLICE = 1 << 20


def has_special(text: str) -> bool:
    """Whether `text` holds a character of _SPECIAL. Every one of them is unprintable (control,
    format or unassigned), and almost every log text is printable but for its line breaks
    and tabs, or ASCII, which C string methods check several times faster than the regex
    does (a build asks this of every output three times: for redaction, search and its page)."""
    if text.isprintable():
        return False
    if text.isascii():
        if len(text) <= _ASCII_SLICE:
            return bool(text.encode().translate(None, _PLAIN_ASCII))
        # a slice at a time: a long output is not copied whole (twice: encoded, translated)
        return any(text[start:start + _ASCII_SLICE].encode().translate(None, _PLAIN_ASCII)
                   for start in range(0, len(text), _ASCII_SLICE))
    if text.replace("\n", " ").replace("\t", " ").isprintable():  # 40% of the regex's time
        return False
    return _SPECIAL.search(text) is not None


# What the screen must act on once a text has special characters: those, and line ends.
_ACTION = re.compile("\n|" + _SPECIAL.pattern)
_INVISIBLE = re.compile("[\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069"
                        "\ufeff\U000e0000-\U000e007f]")
_OSC8 = re.compile(r"8;[^;]*;(?P<uri>.*)", re.S)
_SAFE_LINK = re.compile(r"https?://[^\s\"'<>`]+\Z", re.I)

# The xterm defaults of the 16 palette colours; 256-colour and truecolor values are mapped to
# the nearest of these, so a theme styles 16 classes and every colour follows it.
PALETTE = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205),
           (0, 205, 205), (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0),
           (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255)]
_ATTRIBUTES = {1: "bold", 2: "dim", 3: "italic", 4: "underline", 7: "inverse", 9: "strike"}
_ATTRIBUTE_OFF = {21: "bold", 22: ("bold", "dim"), 23: "italic", 24: "underline", 27: "inverse", 29: "strike"}
# Every class spans() can produce, for themes to style.
CSS_CLASSES = ([f"ansi-{name}" for name in _ATTRIBUTES.values()]
               + [f"ansi-fg-{n}" for n in range(16)] + [f"ansi-bg-{n}" for n in range(16)])


@dataclass(frozen=True)
class Span:
    """A run of text with one style: `css` is space-separated `ansi-*` classes, `href` an http(s) link."""

    text: str
    css: str | None = None
    href: str | None = None


def _visible(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ ␁ … ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\u27e6U+{code:04X}\u27e7"  # ⟦U+202E⟧


def _nearest(red: int, green: int, blue: int) -> int:
    return min(range(16), key=lambda n: sum((a - b) ** 2 for a, b in zip(PALETTE[n], (red, green, blue))))


def _xterm_256(index: int) -> int:
    if index < 16:
        return index
    if index >= 232:
        grey = 8 + (index - 232) * 10
        return _nearest(grey, grey, grey)
    index -= 16
    steps = [0, 95, 135, 175, 215, 255]
    return _nearest(steps[index // 36], steps[index // 6 % 6], steps[index % 6])


class _Style:
    """The SGR state: attributes plus palette indexes of foreground and background."""

    def __init__(self) -> None:
        self.attributes: set[str] = set()
        self.fg: int | None = None
        self.bg: int | None = None

    def css(self) -> str | None:
        classes = [f"ansi-{name}" for name in _ATTRIBUTES.values() if name in self.attributes]
        classes += [f"ansi-fg-{self.fg}"] if self.fg is not None else []
        classes += [f"ansi-bg-{self.bg}"] if self.bg is not None else []
        return " ".join(classes) or None

    def apply(self, params: str) -> None:
        codes = [int(part) if part.isdigit() else 0 for part in re.split("[;:]", params)] if params else [0]
        index = 0
        while index < len(codes):
            code = codes[index]
            index += 1
            if code == 0:
                self.__init__()
            elif code in _ATTRIBUTES:
                self.attributes.add(_ATTRIBUTES[code])
            elif code in _ATTRIBUTE_OFF:
                names = _ATTRIBUTE_OFF[code]
                self.attributes.difference_update((names,) if isinstance(names, str) else names)
            elif 30 <= code <= 37 or 90 <= code <= 97:
                self.fg = code - 30 if code < 90 else code - 82
            elif 40 <= code <= 47 or 100 <= code <= 107:
                self.bg = code - 40 if code < 100 else code - 92
            elif code == 39:
                self.fg = None
            elif code == 49:
                self.bg = None
            elif code in (38, 48) and index < len(codes):
                mode = codes[index]
                colour = None
                if mode == 5 and index + 1 < len(codes):
                    colour, index = _xterm_256(min(codes[index + 1], 255)), index + 2
                elif mode == 2 and index + 3 < len(codes):
                    red, green, blue = (min(value, 255) for value in codes[index + 1:index + 4])
                    colour, index = _nearest(red, green, blue), index + 4
                else:
                    index = len(codes)  # malformed: ignore the rest, as terminals do
                if code == 38:
                    self.fg = colour
                else:
                    self.bg = colour


class _Screen:
    """Lines of styled runs with a cursor, so \\r and \\b overwrite. A line is kept as whole
    runs while text is only appended (the usual case, and cheap for huge outputs); it is split
    into one run per character only when the cursor moved back over it."""

    def __init__(self) -> None:
        self.lines: list[list[tuple[str, str | None, str | None]]] = [[]]
        self.length = 0  # characters on the current line
        self.column = 0

    def write(self, chunk: str, css: str | None, href: str | None) -> None:
        line = self.lines[-1]
        if self.column == self.length:
            line.append((chunk, css, href))
            self.length += len(chunk)
            self.column = self.length
            return
        cells = [(char, run_css, run_href) for text, run_css, run_href in line for char in text]
        for char in chunk:
            if self.column < len(cells):
                cells[self.column] = (char, css, href)
            else:
                cells.append((char, css, href))
            self.column += 1
        self.lines[-1] = cells
        self.length = len(cells)

    def control(self, char: str, css: str | None, href: str | None) -> None:
        if char == "\n":
            self.lines.append([])
            self.length = self.column = 0
        elif char == "\r":
            self.column = 0
        elif char == "\b":
            self.column = max(0, self.column - 1)
        elif char == "\t":
            self.write(char, css, href)
        else:
            self.write(_visible(char), css, href)

    def spans(self) -> list[Span]:
        runs = [run for number, line in enumerate(self.lines)
                for run in (line + [("\n", None, None)] if number < len(self.lines) - 1 else line)]
        return [Span("".join(run[0] for run in group), css, href)
                for (css, href), group in groupby(runs, key=lambda run: (run[1], run[2]))]


def _run(text: str) -> _Screen:
    screen, style, href = _Screen(), _Style(), None
    position = 0
    for match in _ESCAPE.finditer(text):
        _write_plain(screen, text[position:match.start()], style.css(), href)
        position = match.end()
        if match["csi_final"] == "m":
            style.apply(match["csi_params"])
        elif match.group(0).startswith("\x1b]"):
            link = _OSC8.match(match["string"] or "")
            if link:  # OSC 8 opens a link (or closes it, with an empty URI)
                href = link["uri"] if _SAFE_LINK.match(link["uri"]) else None
    _write_plain(screen, text[position:], style.css(), href)
    return screen


def _write_plain(screen: _Screen, text: str, css: str | None, href: str | None) -> None:
    position = 0
    for match in _ACTION.finditer(text):
        if match.start() > position:
            screen.write(text[position:match.start()], css, href)
        char = match.group(0)
        if _INVISIBLE.match(char):
            screen.write(_visible(char), css, href)
        else:
            screen.control(char, css, href)
        position = match.end()
    if position < len(text):
        screen.write(text[position:], css, href)


def spans(text: str) -> list[Span]:
    """`text` as a terminal would show it, in runs of one style; every control made harmless."""
    if not has_special(text):
        return [Span(text)] if text else []
    return _run(text).spans()


def payloads(text: str) -> list[str]:
    """The texts escape sequences carry (window titles, OSC 8 link targets, DCS strings),
    which `plain` leaves out: redaction looks in them before they are parsed."""
    return [match["string"] for match in _ESCAPE.finditer(text) if match["string"]]


def plain(text: str) -> str:
    """What a terminal would show, without styling: for search, redaction and previews."""
    if not has_special(text):
        return text
    # Escape sequences only style or steer: without styling, removing them is all they need.
    # Lines a cursor moves back on (\r, \b) go through the screen; the rest is substituted.
    stripped = _ESCAPE.sub("", text)
    lines = stripped.split("\n")
    return "\n".join(_shown_line(line) if ("\r" in line or "\b" in line) else
                     _LONE.sub(_lone, line) for line in lines)


_LONE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + _INVISIBLE.pattern[1:-1] + "]")


def _lone(match: re.Match[str]) -> str:
    return _visible(match.group(0))


def _shown_line(line: str) -> str:
    if "\b" not in line:  # progress bars: each \r rewrites the start of the line
        shown = ""
        for part in line.split("\r"):
            shown = part + shown[len(part):]
        return _LONE.sub(_lone, shown)
    screen = _Screen()
    _write_plain(screen, line, None, None)
    return "".join(span.text for span in screen.spans())


_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_LINE_BREAKS = re.compile("[\n\r\t\x85\u2028\u2029]")


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def for_terminal(text: str, color: bool, line: bool = False) -> str:
    """Text from a log made safe to print: every control character is shown escaped (`\\x1b[…`),
    except SGR colour sequences when `color` (output going to a terminal that shows them).
    A `line` (a warning, an error, a name) has its line breaks and tabs escaped too, so a
    file name cannot start an output line of its own (`::error::` in CI logs)."""
    text = text.replace("\r\n", "\n")
    if line:
        text = _LINE_BREAKS.sub(lambda m: _escaped(m.group(0)), text)
    if color:
        parts = _SGR.split(text)
        kept = _SGR.findall(text)
        return "".join(_escape_controls(part) + (kept[index] if index < len(kept) else "")
                       for index, part in enumerate(parts))
    return _escape_controls(text)


def _escape_controls(text: str) -> str:
    return re.sub("[\x00-\x08\x0b-\x1f\x7f-\x9f]", lambda m: _escaped(m.group(0)),
                  _INVISIBLE.sub(lambda m: _escaped(m.group(0)), text))
