"""The views of a string that secrets are looked for in (see `views`).

Redaction makes them for every distinct string of every session, so each is found with
regexes that start with one rare character (a separator, a line break, a dot): such a regex
skips to where that character stands (as fast as str.find), where one starting with a common
character or a character class is tried, and fails, at nearly every position of the text. What has to be read backwards
from such a character (the long run of name characters before a `/`) is read forwards in
the reversed text.
"""
from __future__ import annotations

import base64
import binascii
import html
import re
from urllib.parse import unquote

import orjson

from replay_site import ansi
from replay_site.redact.rules import wordy

# Characters of a token a terminal may wrap (`_TOKEN`), and of a part of a path or file name.
_TOKEN = r"[A-Za-z0-9_\-+/=.:]"
_NAME = r"[A-Za-z0-9_\-+=.]"
# A line break with at least six token characters before it and a run of them after it: a
# line a terminal wrapped (the last line of a token may hold only its last few characters).
_WRAP = re.compile(rf"\n(?:(?<={_TOKEN}{{6}}\n)|(?<={_TOKEN}{{6}}\r\n))({_TOKEN}+)")
_TOKEN_RUN = re.compile(f"{_TOKEN}*")
# Parts of paths and file names at least this long are looked at without their extension.
_NAME_PART = 16
# A long part right after a separator (in the reversed text: right before one); one regex per
# separator, as a regex starting with a literal character skips ahead several times faster
# than one starting with a character class.
_AFTER_SEPARATOR = {separator: re.compile(rf"{re.escape(separator)}({_NAME}{{{_NAME_PART},}})") for separator in "/\\"}
_FILE_EXTENSION = re.compile(rf"\.(?:txt|json|jsonl|key|pem|env|log|ya?ml|cfg|conf|ini|toml|md|csv|sh|bak)(?!{_NAME})")
_NAME_RUN = re.compile(f"{_NAME}*")
_EXTENSION = re.compile(r"\.[A-Za-z]{1,5}$")
# Between the pieces of one view (wrapped tokens joined, name parts): no rule's match runs
# across it (a value starts with no `;`, a token holds no line break), so a match never takes
# the end of one piece and the start of the next (`KEY_FILE=` then a path of another line).
_APART = "\n;\n"
_JSON_START = re.compile(r"\s*[{\[]")  # \s: what str.strip() strips
# A run of base64 (either alphabet) long enough to hold a token: a Kubernetes Secret's data,
# `echo … | base64`. Its first character is checked against the one before it, which fails at
# once inside a run, so each run is tried from its start alone.
_SHORTEST_RUN = 24
_BASE64_RUN = re.compile(rf"[A-Za-z0-9+/_-](?<![A-Za-z0-9+/_-].)[A-Za-z0-9+/_-]{{{_SHORTEST_RUN - 1},}}={{0,2}}")
# Most texts hold no such run, which turning each base64 character into "a" tells at a tenth
# of the regex's cost (encoded, a non-ASCII character is one "?", never one of them).
_BASE64_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"
_EACH_AS_A = bytes.maketrans(_BASE64_CHARS, b"a" * len(_BASE64_CHARS))
_RUN_AS_AS = b"a" * _SHORTEST_RUN


def json_leaves(text: str) -> list[str]:
    """The string values (and keys) of `text` when it is a JSON document, else nothing."""
    if not _JSON_START.match(text):  # a long output is not copied to be stripped
        return []
    stripped = text.strip()
    if len(stripped) < 8:
        return []
    try:
        document = orjson.loads(stripped)
    except (orjson.JSONDecodeError, ValueError):  # not JSON, or deeper than orjson reads
        return []
    leaves, stack = [], [document]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            leaves.append(node)
        elif isinstance(node, dict):
            leaves.extend(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return leaves


def views(text: str) -> list[str]:
    """What a secret is looked for in: the text as shown, the payloads of its escape
    sequences, the JSON it holds, HTML-unescaped, URL-decoded, wrapped lines joined, words
    glued on by `__` cut off, parts of paths and file names without their extension."""
    shown = ansi.plain(text)
    found = [shown, *json_leaves(shown)]
    if "\x1b" in text or "\x9d" in text:
        found += ansi.payloads(text)
    if "&" in shown and (unescaped := html.unescape(shown)) != shown:
        found.append(unescaped)
    if "%" in shown:
        found.append(unquote(shown))
    backwards = shown[::-1] if "\n" in shown or "/" in shown or "\\" in shown or "." in shown else ""
    if "\n" in shown and (joined := wrapped(shown, backwards)):
        found.append(_APART.join(joined))
    if "__" in shown:
        found.append(re.sub("_{2,}", " ", shown))
    if ("/" in shown or "." in shown) and (parts := name_parts(shown, backwards)):
        found.append(_APART.join(parts))
    found += base64_decoded(shown)
    return found


def base64_decoded(shown: str) -> dict[str, str]:
    """The runs of base64 in `shown` that decode to text, by that text: a secret found in one
    is replaced as the run that holds it (a hash or a picture decodes to bytes that are no text)."""
    decoded = {}
    if _RUN_AS_AS not in shown.encode("ascii", "replace").translate(_EACH_AS_A):
        return decoded
    for match in _BASE64_RUN.finditer(shown):
        run = match.group(0)
        urlsafe = "-" in run or "_" in run
        if len(run.rstrip("=")) % 4 == 1 or (urlsafe and ("+" in run or "/" in run)):
            continue
        try:
            text = base64.b64decode(run.rstrip("=") + "=" * (-len(run.rstrip("=")) % 4),
                                    altchars=b"-_" if urlsafe else None, validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            continue
        if len(text) >= 16 and all(c.isprintable() or c in "\n\r\t" for c in text):
            decoded.setdefault(text, run)
    return decoded


def wrapped(shown: str, backwards: str) -> list[str]:
    """Long tokens a line break cuts, joined again: each run of at least six token characters
    before a line break (`\\r\\n` too) with the run after it, left to right; a run that
    ended the previous piece and fills its line continues that piece (a token wrapped over
    three lines or more), else it starts no other. Such a piece is given once more from its
    second run on: the first may be the end of the line before a token that starts its own
    (`$ ls /home/dev` then a wrapped key). A run that reads as words (`repository`, `ssh_key:`)
    starts a line of its own: a wrapped token goes on with random characters, and joined to
    the token before, the next line's first word would be taken for the token's end
    (`password = pypi-…` then `repository = …`)."""
    joined = []
    end = len(shown)
    taken = 0  # where the last piece ends
    last_line = -1  # where its last run (the start of a line) begins
    piece, from_second = -1, -1  # the last piece's index in `joined`, and its copy's from its second run
    for match in _WRAP.finditer(shown):
        before_end = match.start() - (shown[match.start() - 1] == "\r")
        start = end - _TOKEN_RUN.match(backwards, end - before_end).end()
        if wordy(match.group(1)):
            continue
        if start == last_line and before_end <= taken:
            joined[piece] += match.group(1)
            if from_second < 0:
                joined.append(shown[start:before_end] + match.group(1))
                from_second = len(joined) - 1
            else:
                joined[from_second] += match.group(1)
        elif start >= taken:
            joined.append(shown[start:before_end] + match.group(1))
            piece, from_second = len(joined) - 1, -1
        else:
            continue
        taken, last_line = match.end(), match.start(1)
    return joined


def name_parts(shown: str, backwards: str) -> list[str]:
    """The runs of at least 16 name characters that stand next to a path separator or end in
    a file extension, in order, the extension cut off."""
    end = len(shown)
    spans = set()
    for separator, after in _AFTER_SEPARATOR.items():
        if separator in shown:
            spans.update(match.span(1) for match in after.finditer(shown))
            spans.update((end - match.end(1), end - match.start(1)) for match in after.finditer(backwards))
    for match in _FILE_EXTENSION.finditer(shown):
        start = end - _NAME_RUN.match(backwards, end - match.end()).end()
        if match.end() - start >= _NAME_PART:
            spans.add((start, match.end()))
    return [_EXTENSION.sub("", shown[start:stop]) for start, stop in sorted(spans)]
