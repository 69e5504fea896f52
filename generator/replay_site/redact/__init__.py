"""Secret redaction, applied to the model before anything is written (on by default).

Logs hold whatever passed through the agent's terminal: keys printed by `env`, `.env` files
it read, tokens in URLs. Every string of a session — prose, thinking, argument keys and values
(nested JSON and JSON held inside strings too), outputs, titles, paths, diffs, details,
variables, facts — is checked as a terminal would show it (ANSI codes removed, so a key split
by colour codes is still found) and each secret is replaced by `[REDACTED:kind]` wherever it
appears in the raw string: verbatim, split by escape codes, JSON-, HTML- or URL-escaped.
"""
from __future__ import annotations

import html
import re
from collections import Counter
from urllib.parse import quote, unquote

import orjson

from replay_site import ansi
from replay_site.model import Session
from replay_site.model_text import StringWalk
from replay_site.redact.detect import (
    Detector,
    Hit,
    ScannerUnavailable,
    scanner_version,
    start_scanner,
)

__all__ = ["Detector", "Hit", "ScannerUnavailable", "count_secrets", "redact_session", "scanner_version", "start_scanner"]

# Deeper argument trees are cut here with a visible marker, so no later stage (rendering,
# JSON encoding) meets a depth it cannot handle.
MAX_DEPTH = 100
_ESCAPES = "(?:\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)?)*"


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _json_leaves(text: str) -> list[str]:
    """The string values (and keys) of `text` when it is a JSON document, else nothing."""
    stripped = text.strip()
    if not stripped[:1] in ("{", "[") or len(stripped) < 8:
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


def _spellings(secret: str) -> list[str]:
    """How a secret can be written inside a raw string: verbatim and escaped."""
    forms = {secret, orjson.dumps(secret).decode()[1:-1], html.escape(secret), quote(secret, safe="")}
    forms.add(orjson.dumps(secret).decode()[1:-1].replace("/", "\\/"))
    return sorted(forms, key=len, reverse=True)


class Redactor:
    """Redacts strings and counts what it replaced, per kind."""

    def __init__(self, detector: Detector, views: dict[str, list[str]] | None = None) -> None:
        self.detector = detector
        self.counts: Counter[str] = Counter()
        self.views = views or {}  # each string's views, when already made (`_texts`)

    def secrets(self, text: str) -> dict[str, str]:
        """Each secret in `text` (as shown, in JSON it holds, URL-decoded) -> its kind."""
        found: dict[str, str] = {}
        for view in self.views.get(text) or _views(text):
            for hit in self.detector.find(view):
                found.setdefault(view[hit.start:hit.end], hit.kind)
        return found

    def text(self, text: str) -> str:
        found = self.secrets(text)
        if not found:
            return text
        result = text
        for secret, kind in sorted(found.items(), key=lambda item: len(item[0]), reverse=True):
            replaced = 0
            for spelling in _spellings(secret):
                replaced += result.count(spelling)
                result = result.replace(spelling, marker(kind))
            if "\x1b" in result:  # the secret split by colour codes
                split = re.compile(_ESCAPES.join(map(re.escape, secret)))
                result, more = split.subn(marker(kind), result)
                replaced += more
            self.counts[kind] += max(replaced, 1)
        if any(secret in ansi.plain(result) for secret in found):
            # Drawn by cursor tricks the raw string does not hold in one piece: keep the
            # text as shown (styling lost), redacted there.
            result = self._redact_shown(ansi.plain(result))
        return result

    def _redact_shown(self, shown: str) -> str:
        hits = self.detector.find(shown)
        for hit in reversed(hits):
            shown = shown[:hit.start] + marker(hit.kind) + shown[hit.end:]
        return shown


def _views(text: str) -> list[str]:
    """What a secret is looked for in: the text as shown, the JSON it holds, URL-decoded."""
    shown = ansi.plain(text)
    views = [shown, *_json_leaves(shown)]
    if "%" in shown:
        views.append(unquote(shown))
    return views


def _session_views(session: Session) -> dict[str, list[str]]:
    """The views of every string redaction looks at in `session` (not its children), by
    string; argument trees nested deeper than MAX_DEPTH are cut on the way."""
    views: dict[str, list[str]] = {}

    def look(text: str) -> str:
        if text not in views:
            views[text] = _views(text)
        return text

    StringWalk(look, depth_cut=MAX_DEPTH).session(session)
    return views


def redact_session(session: Session, patterns: tuple[str, ...] = ()) -> int:
    """Redact `session` and its descendants in place, recording counts per kind in each
    session's `redactions`; returns the total replaced."""
    detector = Detector(patterns)
    total = 0
    for each in session.walk():
        views = _session_views(each)
        narrow, suspects = detector.narrowed(views)
        # Each distinct string is redacted once; every place holding it counts its secrets.
        redacted: dict[str, tuple[str, Counter[str]]] = {}
        for text in suspects:
            redactor = Redactor(narrow, views)
            result = redactor.text(text)
            if redactor.counts or result != text:
                redacted[text] = (result, redactor.counts)
        counts: Counter[str] = Counter()
        if redacted:
            def replace(text: str) -> str:
                found = redacted.get(text)
                if found is None:
                    return text
                counts.update(found[1])
                return found[0]

            StringWalk(replace).session(each)  # children are reached through session.walk()
        each.redactions = dict(sorted(counts.items()))
        total += sum(counts.values())
    return total


def count_secrets(sessions: list[Session], patterns: tuple[str, ...] = ()) -> int:
    """How many secrets redaction would replace in `sessions` (each counted once, children
    included only when listed), leaving them unchanged: for `--no-redact`'s warning."""
    redactor = Redactor(Detector(patterns))
    total = 0

    def count(text: str) -> str:
        nonlocal total
        total += len(redactor.secrets(text))
        return text

    walk = StringWalk(count, keys=False)
    for session in sessions:
        walk.session(session)
    return total
