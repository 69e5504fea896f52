"""Secret redaction, applied to the model before anything is written (on by default).

Logs hold whatever passed through the agent's terminal: keys printed by `env`, `.env` files
it read, tokens in URLs. Every string of a session — prose, thinking, argument keys and values
(nested JSON and JSON held inside strings too), outputs, titles, paths, diffs, details,
variables, facts — is checked in several views: as a terminal would show it (ANSI codes
removed, so a key split by colour codes is still found), the payloads of the escape sequences
it holds (an OSC 8 link's target), HTML-unescaped, URL-decoded, lines a terminal wrapped joined
again, a word glued on by `__` cut off, file extensions cut off. Each secret is replaced by
`[REDACTED:kind·32-63chars]` (its kind and length class: `marker`) wherever it appears in the
raw string: verbatim, split by escape codes or line breaks, JSON-, HTML- or URL-escaped (each
character or only some).

Names are redacted too: a session id holding a secret becomes `redacted-<hash>` (the same
everywhere it links), a source path or problem holding one gets the marker.
"""
from __future__ import annotations

import hashlib
import html
import re
from array import array
from collections import Counter
from functools import lru_cache
from urllib.parse import quote

import orjson

from replay_site import ansi
from replay_site.model import Session, Step
from replay_site.model_text import StringWalk
from replay_site.redact.decisions import NONE, Decisions, digest
from replay_site.redact.detect import (
    Detector,
    Hit,
    ScannerUnavailable,
    scanner_version,
)
from replay_site.redact.rules import SECRET_KEY, names_a_secret
from replay_site.redact.views import base64_decoded
from replay_site.redact.views import views as _views

__all__ = ["Detector", "Hit", "NotTheSame", "PartsRedaction", "ScannerUnavailable", "count_secrets", "redact_session", "scanner_version"]

# Deeper argument trees are cut here with a visible marker, so no later stage (rendering,
# JSON encoding) meets a depth it cannot handle.
MAX_DEPTH = 100
# What may stand between two characters of a secret in a raw string: escape sequences, and a
# line break where a terminal wrapped it.
_BETWEEN_ONE = "\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)?|\r?\n"
_BETWEEN = f"(?:{_BETWEEN_ONE})*"
_LINE_BREAKS = "(?:\r?\n)*"  # what of it a text without escape sequences can hold


def marker(kind: str, length: int) -> str:
    """What stands in a secret's place: its kind and its length class, the powers of two its
    length lies between (`32-63chars` for a 40-character token), which tells a reviewer
    what was there without narrowing a guess at a password."""
    low = 1 << (max(length, 1).bit_length() - 1)
    return f"[REDACTED:{kind}·{low}-{2 * low - 1}chars]"


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
        self.found: set[str] = set()  # every secret replaced

    def secrets(self, text: str) -> dict[str, str]:
        """Each secret in `text` (as shown, in JSON it holds, URL-decoded, in base64 it holds: then
        the base64 run) -> its kind."""
        found: dict[str, str] = {}
        encoded = base64_decoded(ansi.plain(text))  # a view decoded from base64 -> the run it was
        for view in self.views.get(text) or _views(text):
            for hit in self.detector.find(view):
                found.setdefault(encoded.get(view, view[hit.start:hit.end]), hit.kind)
        return found

    def text(self, text: str) -> str:
        found = self.secrets(text)
        if not found:
            return text
        self.found.update(found)
        result = text
        for secret, kind in sorted(found.items(), key=lambda item: len(item[0]), reverse=True):
            replaced, shown = 0, marker(kind, len(secret))
            for spelling in _spellings(secret):
                replaced += result.count(spelling)
                result = result.replace(spelling, shown)
            if any(secret in view for view in _views(result)):  # split, or escaped a character at a time
                result, more = _loose(secret, result).subn(lambda match, shown=shown: shown + _between(match), result)
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
            shown = shown[:hit.start] + marker(hit.kind, hit.end - hit.start) + shown[hit.end:]
        return shown


def _between(match: re.Match[str]) -> str:
    """What stands between a loosely matched secret's characters (escape sequences, line
    breaks): kept after the marker, so each line keeps its own text and the styling after
    the secret is the log's."""
    return "".join(re.findall(_BETWEEN_ONE, match.group(0)))


def _loose(secret: str, text: str) -> re.Pattern[str]:
    """`secret` written any way `text` may hold it: each character as itself or %-encoded,
    with escape sequences or line breaks between characters. Only what `text` can hold is
    spelled out: each pattern costs milliseconds to compile, mostly for the escape sequences
    and %-encodings, which a text without `\x1b` or `%` cannot hold, so leaving them out
    there finds the same."""
    return _loose_pattern(secret, "\x1b" in text, "%" in text)


@lru_cache(maxsize=1024)
def _loose_pattern(secret: str, escapes: bool, encoded: bool) -> re.Pattern[str]:
    def char(c: str) -> str:
        code = f"{ord(c):02X}"
        return f"(?:{re.escape(c)}|%{code}|%{code.lower()})" if encoded and ord(c) < 0x80 else re.escape(c)
    return re.compile((_BETWEEN if escapes else _LINE_BREAKS).join(map(char, secret)))


def _argument_pairs(steps: list[Step]) -> dict[str, list[str]]:
    """A value in an argument tree is found by its key as well (`{"env": {"DD_API_KEY": "…"}}`):
    each string value whose key names a secret gets a `"key": "value"` view, wherever in the
    session that string stands. Found over all of a session's steps before any is redacted,
    after cutting the trees nested deeper than MAX_DEPTH (the views' walk would cut them the
    same way; a cut's marker is no value of the log unless the log holds the same string)."""
    walked_markers: set[str] = set()

    def note_marker(text: str) -> str:
        if text.startswith(_CUT_MARKER):
            walked_markers.add(text)
        return text

    cut = StringWalk(note_marker, depth_cut=MAX_DEPTH)
    pairs: dict[str, list[str]] = {}
    for step in steps:
        for call in step.tool_calls:
            cut.arguments(call)
        stack = [call.arguments for call in step.tool_calls if isinstance(call.arguments, (dict, list))]
        while stack:
            node = stack.pop()
            for key, value in node.items() if isinstance(node, dict) else enumerate(node):
                if isinstance(value, (dict, list)):
                    stack.append(value)
                elif isinstance(key, str) and isinstance(value, str) and SECRET_KEY.fullmatch(key) and names_a_secret(key):
                    pairs.setdefault(value, []).append(f"{orjson.dumps(key).decode()}: {orjson.dumps(value).decode()}")
    return {value: views for value, views in pairs.items() if not value.startswith(_CUT_MARKER) or value in walked_markers}


_CUT_MARKER = "… nested deeper than"
# Steps redacted together: their strings' views are held at once (a long session's whole
# text several times over, were it done in one go).
STEPS_AT_ONCE = 1000


def _views_of(session: Session, steps: list[Step], pairs: dict[str, list[str]]) -> dict[str, list[str]]:
    """The views of every string redaction looks at in `steps` (and in the session's own
    fields when `session` is given), by string; argument trees nested deeper than MAX_DEPTH
    are cut on the way."""
    views: dict[str, list[str]] = {}

    def look(text: str) -> str:
        if text not in views:
            views[text] = _views(text)
        return text

    walk = StringWalk(look, depth_cut=MAX_DEPTH)
    if session is not None:
        walk.head(session)
    for step in steps:
        walk.step(step)
    for value, extra in pairs.items():
        if value in views:
            views[value].extend(extra)
    return views


def _hashed_id(ident: str) -> str:
    return "redacted-" + hashlib.sha256(ident.encode("utf-8", "replace")).hexdigest()[:16]


def _redact_names(session: Session, detector: Detector) -> Counter[str]:
    """Ids holding a secret become a hash of themselves (so links between a parent and its
    children still meet); source paths and problems get the marker."""
    redactor = Redactor(detector)
    session.id, session.parent_id = _ident(redactor, session.id), _ident(redactor, session.parent_id)
    session.source = redactor.text(session.source)
    _redact_links(session.steps, redactor)
    for problem in session.problems:
        problem.message, problem.path = redactor.text(problem.message), redactor.text(problem.path)
    return redactor.counts


def _ident(redactor: Redactor, value: str | None) -> str | None:
    return _hashed_id(value) if value and redactor.secrets(value) else value


def _redact_links(steps: list[Step], redactor: Redactor) -> None:
    for step in steps:
        step.child_session_ids = [_ident(redactor, child) for child in step.child_session_ids]
        for call in step.tool_calls:
            call.child_session_id = _ident(redactor, call.child_session_id)


def redact_session(session: Session, patterns: tuple[str, ...] = (), decisions: Decisions = NONE) -> int:
    """Redact `session` and its descendants in place, recording counts per kind in each
    session's `redactions` (and in `unreviewed` the strings `decisions` does not name);
    returns the total replaced."""
    detector = Detector(patterns, decisions)
    total = 0
    for each in session.walk():
        counts: Counter[str] = Counter(_redact_names(each, detector))
        pairs = _argument_pairs(each.steps)
        found: set[str] = set()
        # The session's own strings with its first steps, then the rest a few at a time: each
        # string's redaction depends on its own views alone (the pairs found over all steps
        # included), so the parts give what the whole would.
        for start in range(0, max(len(each.steps), 1), STEPS_AT_ONCE):
            steps = each.steps[start:start + STEPS_AT_ONCE]
            found |= _redact_part(each if start == 0 else None, steps, pairs, detector, counts)
        each.unreviewed = sum(1 for secret in found if not decisions.reviewed(digest(secret)))
        each.redactions = dict(sorted(counts.items()))
        total += sum(counts.values())
    return total


def _redact_part(session: Session | None, steps: list[Step], pairs: dict[str, list[str]], detector: Detector,
                 counts: Counter[str], views: dict[str, list[str]] | None = None) -> set[str]:
    """Redact `steps` (and the session's own fields when `session` is given), counting each
    replacement in `counts`; returns the secrets found. `views`: theirs, when made already."""
    views = _views_of(session, steps, pairs) if views is None else views
    narrow, suspects = detector.narrowed(views)
    # Each distinct string is redacted once; every place holding it counts its secrets.
    redacted: dict[str, tuple[str, Counter[str]]] = {}
    found: set[str] = set()
    for text in suspects:
        redactor = Redactor(narrow, views)
        result = redactor.text(text)
        found |= redactor.found
        if redactor.counts or result != text:
            redacted[text] = (result, redactor.counts)
    if redacted:
        def replace(text: str) -> str:
            found = redacted.get(text)
            if found is None:
                return text
            counts.update(found[1])
            return found[0]

        walk = StringWalk(replace)
        if session is not None:
            walk.head(session)  # children are reached through session.walk()
        for step in steps:
            walk.step(step)
    return found


class NotTheSame(Exception):
    """A session redacted a part at a time would not be redacted as it is whole."""


class PartsRedaction:
    """`redact_session` for a session given out a part of its steps at a time, in order (a
    streamed read): each part is redacted as it comes, the session's own fields at the end.
    A value is found by its key wherever in the session it stands (`_argument_pairs`), so a
    part naming by a secret's key a string that an earlier part held would have redacted
    that part differently: that raises NotTheSame (read the session whole instead)."""

    def __init__(self, patterns: tuple[str, ...] = (), decisions: Decisions = NONE) -> None:
        self._detector, self._decisions = Detector(patterns, decisions), decisions
        self._links = Redactor(self._detector)
        self._counts: Counter[str] = Counter()
        self._found: set[str] = set()
        self._pairs: dict[str, list[str]] = {}
        self._seen = array("q")  # hashes of the strings of the parts redacted so far

    def steps(self, steps: list[Step]) -> None:
        _redact_links(steps, self._links)
        pairs = _argument_pairs(steps)
        if any(hash(value) in self._seen for value in pairs):
            raise NotTheSame("a value named by a secret's key stood alone earlier")
        for value, extra in pairs.items():
            self._pairs.setdefault(value, []).extend(extra)
        views = _views_of(None, steps, self._pairs)
        self._found |= _redact_part(None, steps, self._pairs, self._detector, self._counts, views)
        self._seen.extend(map(hash, views))

    def session(self, session: Session) -> None:
        """Redact the session's own fields, once all its steps are; its counts and the
        strings found unreviewed are the whole session's."""
        counts = Counter(_redact_names(session, self._detector)) + self._counts
        found = self._found | _redact_part(session, [], self._pairs, self._detector, counts)
        session.unreviewed = sum(1 for secret in found if not self._decisions.reviewed(digest(secret)))
        session.redactions = dict(sorted(counts.items()))


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
