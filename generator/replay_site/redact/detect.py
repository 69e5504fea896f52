"""Finding likely secrets in one text: a maintained rule catalogue plus context rules of ours.

The catalogue is kingfisher-secret-scanner (offline, ~500 provider rules with byte offsets; its
validation API, which would contact providers, is never used). Catalogues match token
shapes; what they miss is context: a password in a URL, a header value, `DB_PASSWORD=` in an
env dump, `-pSecret` on a mysql command line. Our rules cover those, and a placeholder filter
keeps documentation values (`your-token`, `<key>`, `${TOKEN}`, AWS's `...EXAMPLE` keys) readable.
"""
from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

from replay_site.catalogue import ScannerUnavailable, load_scanner, scan, scanner_version  # noqa: F401 - the redaction's API
from replay_site.redact.decisions import NONE, Decisions, digest
from replay_site.redact.rules import (
    CASELESS,
    CHECKS,
    CONTEXT_RULES,
    NAME_ROOTS,
    NAMED_RULES,
    NEEDS,
    SECRET_GROUPS,
    SHAPES,
    TRAILING,
    TRIMMED,
    VALUE_RULES,
    names_a_secret,
    wordy,
)

# Between views joined for one scan; a rule's edges (\b, lookarounds, \Z) treat it as a text's end.
_GAP = "\n\n"
# The part of a name before a word in it (at most 64 characters), read in the reversed text.
_NAME_BEFORE = re.compile(r"[\w.-]{0,64}")
# A string the decisions file may name to redact: a word as a shell or a config splits them.
_WORD = re.compile(r"[^\s\"'`<>,;()\[\]{}=]{4,}")

# Documentation and template values, not credentials.
_PLACEHOLDER = re.compile(r"(?i)your[-_ ]|example|placeholder|changeme|dummy|redacted|^<.*>$|\$\{|\$\(|\{\{|\*\*\*|x{6,}"
                          r"|^\$[A-Z_]+$|^%[A-Z_]+%$|^(?:password|secret|token|pass|passwd)$")
# Code, not a credential: a dotted reference or a call (`settings.SECRET_KEY`, `env(`), a path
# (`/run/secrets/api_key`, `~/.ssh/id_ed25519`, `C:\\keys\\a.pem`, `certs/server.pem`), a
# version or a number (`^3.949.0`, `2048`), an environment lookup the placeholder rule has not.
_REFERENCE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[\w$]+)+(?:\(\)?)?")  # a plain identifier is for wordy()
_PATH = re.compile(r"(?:~|\.{1,2})?/[\w.@+-]*(?:/[\w.@+-]*)*|[A-Za-z]:\\[\w\\. -]*|[\w.-]+(?:[/\\][\w.-]+)+\.[A-Za-z0-9]{1,5}")
_VERSION = re.compile(r"[~^<>=v]*\d+(?:[._]\d+)*(?:[-+.][\w.]+)?")
_LOOKUP = re.compile(r"^\$\{?\w+|^%\w+%$|environ|getenv|\bsecrets\.")
# A token's characters in a random order: at least this many bits of Shannon entropy per
# character (a random 16-character one holds ~3.7, `Hunter2Hunter2` 2.8, `aaaa1111` 1.0); a
# bit under the most its length allows for short values (a random 8-character one: ~2.8).
_ENTROPY = 2.5


def is_placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.search(value)) or len(set(value)) <= 2


def entropy(value: str) -> float:
    """Shannon entropy of the value's characters, in bits per character."""
    return -sum(count / len(value) * math.log2(count / len(value)) for count in Counter(value).values())


def secret_shaped(value: str) -> bool:
    """Whether a value a name calls a secret has the shape of one: not code (a reference, a
    call, a path, a version, an environment lookup), not words (a plain word, an identifier,
    a dotted name), at least 8 characters of random-looking text (two character classes, or
    20 characters of one), whose entropy a token's characters have."""
    if len(value) < 8 or "(" in value or "\ufffd" in value or _LOOKUP.search(value):  # U+FFFD: a %-decoding gone wrong
        return False
    if _REFERENCE.fullmatch(value) and not any(char.isdigit() for char in value):
        return False
    if _PATH.fullmatch(value) and not any(_random_part(part) for part in re.split(r"[/\\]", value)):
        return False
    if _VERSION.fullmatch(value) or wordy(value):
        return False
    classes = (any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value),
               any(not c.isalnum() and c not in "-_." for c in value))
    return (sum(classes) >= 2 or len(value) >= 20) and entropy(value) >= min(_ENTROPY, math.log2(len(value)) - 1)


def _random_part(part: str) -> bool:
    """A path's part that reads as a token (lower, upper and digits, eight or more), not a folder's name."""
    return len(part) >= 8 and any(c.islower() for c in part) and any(c.isupper() for c in part) and any(c.isdigit() for c in part)


_CATALOGUE_PREFIXES = ("betterleaks.", "kingfisher.", "veles.secrets/", "custom.")


@dataclass(frozen=True)
class Hit:
    start: int
    end: int
    kind: str


def _kind(rule_id: str) -> str:
    for prefix in _CATALOGUE_PREFIXES:
        rule_id = rule_id.removeprefix(prefix)
    return re.sub(r"[^a-z0-9]+", "-", rule_id.lower()).strip("-") or "secret"


# A view this long is scanned for narrowed() on its own, not joined with the others (which
# would copy it: a 300 MB output held once more).
SCANNED_ALONE = 16 * 1024 * 1024


def _scanned_together(chunks: list[str]) -> list[Sequence[int]]:
    """The indexes of `chunks` in groups each joined for one scan: every chunk of SCANNED_ALONE
    characters or more alone, the others together (one group when none is that long)."""
    if not chunks or max(map(len, chunks)) < SCANNED_ALONE:
        return [range(len(chunks))]
    alone = [[index] for index, chunk in enumerate(chunks) if len(chunk) >= SCANNED_ALONE]
    rest = [index for index, chunk in enumerate(chunks) if len(chunk) < SCANNED_ALONE]
    return [rest, *alone] if rest or not alone else alone


def _catalogue_hits(text: str) -> list[Hit]:
    data = text.encode("utf-8", "replace")  # lone surrogates become one byte, like one character
    hits = []
    for finding in scan(data):
        location = finding.location
        start, end = location["start_offset"], location["end_offset"]
        if not data.isascii():
            start, end = (len(data[:offset].decode("utf-8", "replace")) for offset in (start, end))
        secret = finding.secret
        inner = text.find(secret, start, end) if secret and not finding.is_base64_encoded else -1
        if inner >= 0:
            start, end = inner, inner + len(secret)
        hits.append(Hit(start, end, _kind(finding.rule_id)))
    return hits


def _may_match(kind: str, text: str) -> bool:
    """Whether `text` (lower-cased for the rules that ignore case) holds a word the rule needs,
    and the shape it needs (SHAPES)."""
    return any(word in text for word in NEEDS.get(kind, ("",))) and _has_shape(kind, text)


def _has_shape(kind: str, text: str) -> bool:
    shape = SHAPES.get(kind)
    return shape is None or shape.search(text) is not None


def _rules_that_may_match(text: str, lower: str) -> list[tuple[str, re.Pattern[str]]]:
    """The context rules `_may_match` keeps for `text` (whose `lowered` form is `lower`), its
    words looked for with a scan per first character instead of one per word, all of them in
    the lower-cased text (a word in `text` stands lower-cased there); a cased word found there
    is then looked for in `text` itself. One scan per first character of both kinds of words
    instead of one for each kind: a cold build of the medium corpus scanned its sessions'
    joined views in 0.57 s, now 0.44 s."""
    present = words_in(lower, _WORDS_LOWERED)
    cased = {word for word in _CASED_WORDS if word.lower() in present and word in text}
    caseless = present & _CASELESS_WORDS
    return [(kind, pattern) for kind, pattern in CONTEXT_RULES
            if any(word in (caseless if kind in CASELESS else cased) for word in NEEDS.get(kind, ("",)))
            and _has_shape(kind, lower if kind in CASELESS else text)]


def words_in(text: str, words: frozenset[str]) -> set[str]:
    """Which of `words` occur in `text`. Words sharing a first character are looked for in one
    scan that stops only where that character stands, which costs about one str.find over
    the text however many words share it (most are absent, and each str.find of an absent
    word reads the whole text). At each stop the longest word standing there is reported;
    the words it begins with stand there too, and no other word can, so every word present
    is found. A found word is taken out of the scan."""
    found = {word for word in words if len(word) == 1 and word in text}
    rests_by_first: dict[str, set[str]] = {}
    for word in words:
        if len(word) > 1:
            rests_by_first.setdefault(word[0], set()).add(word[1:])
    for first, rests in rests_by_first.items():
        position = 0
        while rests:
            if len(rests) == 1:
                found.update(first + rest for rest in rests if first + rest in text)
                break
            stop = _word_scan(first, frozenset(rests)).search(text, position)
            if stop is None:
                break
            here = {rest for rest in rests if stop.group(1).startswith(rest)}
            found.update(first + rest for rest in here)
            rests -= here
            position = stop.start() + 1
    return found


@lru_cache(maxsize=256)
def _word_scan(first: str, rests: frozenset[str]) -> re.Pattern[str]:
    """`first` followed by the longest of `rests` standing after it (a regex starting with one
    literal character skips to it as fast as str.find)."""
    return re.compile(re.escape(first) + "(?=(" + "|".join(map(re.escape, sorted(rests, key=len, reverse=True))) + "))")


_CASED_WORDS = frozenset(word for kind, _pattern in CONTEXT_RULES if kind not in CASELESS for word in NEEDS.get(kind, ("",)))
_CASELESS_WORDS = frozenset(word for kind, _pattern in CONTEXT_RULES if kind in CASELESS for word in NEEDS.get(kind, ("",)))
_WORDS_LOWERED = frozenset(word.lower() for word in _CASED_WORDS) | _CASELESS_WORDS


def lowered(text: str) -> str:
    """`text` lower-cased with every character where it was (U+0130 lower-cases to two
    characters, which would shift the positions found in the lower-cased text)."""
    lower = text.lower()
    return lower if len(lower) == len(text) else "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _matches(kind: str, pattern: re.Pattern[str], text: str, lower: str | None) -> Iterator[re.Match[str]]:
    return _named_matches(pattern, text, lower or lowered(text)) if kind in NAMED_RULES else pattern.finditer(text)


def _named_matches(pattern: re.Pattern[str], text: str, lower: str) -> Iterator[re.Match[str]]:
    """A named rule's matches: tried only at the start of the names that hold a secret's word
    (most `name: value` pairs in code and JSON do not, and trying each costs). The words are
    found with str.find, which costs a fraction of a regex search; the start of the name
    before each is matched forwards in the reversed text (a regex search for it backwards
    from the word tried every start before it, and cost more than all the rest)."""
    backwards = text[::-1]
    end = len(text)
    starts = set()
    for root in NAME_ROOTS:
        position = lower.find(root)
        while position >= 0:
            start = end - _NAME_BEFORE.match(backwards, end - position).end()
            if text[start - 1:start] == "\\" and text[start:start + 1] in ("n", "r", "t"):
                start += 1  # after a JSON string's `\n`: the name is what follows it
            starts.add(start)
            position = lower.find(root, position + len(root))
    for start in sorted(starts):
        match = pattern.match(text, start)
        if match and names_a_secret(match["name"]):
            yield match


def _rule_hits(text: str, rules: list[tuple[str, re.Pattern[str]]]) -> list[Hit]:
    hits = []
    lower = None
    for kind, pattern in rules:
        if kind in CASELESS:
            lower = lowered(text) if lower is None else lower
        if not _may_match(kind, lower if kind in CASELESS else text):
            continue
        for match in _matches(kind, pattern, text, lower):
            group = next((name for name in SECRET_GROUPS if name in pattern.groupindex and match.group(name)), None)
            if group is None and pattern.groups == 1 and match.group(1):
                group = 1
            start, end = match.span(group) if group is not None else match.span()
            if kind in CHECKS and not CHECKS[kind](text[start:end]):
                continue
            if kind in TRIMMED:
                end = start + len(text[start:end].rstrip(TRAILING))
            hits.append(Hit(start, end, kind))
    return hits


def _decided(text: str, hashes: frozenset[str]) -> list[Hit]:
    """The words of `text` (with or without a sentence's final punctuation) whose hash the
    decisions file says to redact."""
    hits = []
    for match in _WORD.finditer(text):
        for word in (match.group(0), match.group(0).rstrip(".:!?")):
            if digest(word) in hashes:
                hits.append(Hit(match.start(), match.start() + len(word), "decided"))
                break
    return hits


class Detector:
    """Finds secrets in a text; `patterns` are user regexes (`--redact-pattern`), kind "custom"."""

    def __init__(self, patterns: tuple[str, ...] = (), decisions: Decisions = NONE) -> None:
        self.user_rules = [("custom", re.compile(pattern)) for pattern in patterns]
        self.rules = CONTEXT_RULES
        self.catalogue = True
        self.decisions = decisions

    def narrowed(self, views: dict[str, list[str]]) -> tuple[Detector, list[str]]:
        """For a session's texts (each with the views `find` looks in), a detector that skips
        what cannot match any of them (a rule whose words none holds, the catalogue when it
        finds nothing in them all), and the texts worth a `find`: those a match found in all
        views joined touches. Scanning the views joined once costs a fraction of scanning
        each, and most texts hold no secret. A view of SCANNED_ALONE characters or more is
        scanned on its own: joined, it would be copied."""
        chunks: list[str] = []
        owners: list[str] = []
        for text, text_views in views.items():
            for view in text_views:
                chunks.append(view)
                owners.append(text)
        narrow = Detector(decisions=self.decisions)
        narrow.user_rules = self.user_rules
        narrow.catalogue = False
        all_views = self.user_rules or self.decisions.redact  # a user's regex may anchor to a text's start or end, lost when joined
        kept: set[tuple[str, re.Pattern[str]]] = set()
        suspects: dict[str, None] = {}
        secrets: set[str] = set()
        for group in _scanned_together(chunks):
            joined = _GAP.join(chunks if len(group) == len(chunks) else [chunks[index] for index in group])
            catalogue = _catalogue_hits(joined)  # before `lower` is made: its bytes and `lower` are not held at once
            narrow.catalogue = narrow.catalogue or bool(catalogue)
            lower = lowered(joined)
            rules = _rules_that_may_match(joined, lower)
            kept.update(rules)
            if all_views:
                continue
            # A match inside one view is a match in the joined text too: the joined scan finds it,
            # or an earlier match covering its start (a match across views only adds suspects).
            spans = [(hit.start, hit.end) for hit in catalogue]
            for kind, pattern in rules:
                spans.extend(match.span() for match in _matches(kind, pattern, joined, lower))
            starts = list(accumulate((len(chunks[index]) + len(_GAP) for index in group[:-1]), initial=0))
            for start, end in spans:
                for at in range(max(bisect_right(starts, start) - 1, 0), bisect_right(starts, max(end - 1, start))):
                    suspects[owners[group[at]]] = None
            secrets.update(joined[hit.start:hit.end] for hit in catalogue)
            del joined, lower
        narrow.rules = [rule for rule in CONTEXT_RULES if rule in kept]
        if all_views:
            return narrow, list(views)
        # the catalogue may report a secret once where several views hold it
        for secret in secrets:
            suspects.update((owners[index], None) for index, chunk in enumerate(chunks) if secret in chunk)
        return narrow, list(suspects)

    def find(self, text: str) -> list[Hit]:
        """Non-overlapping hits, in order; placeholders and strings the decisions file allows left
        out (user rules are trusted as given), strings it says to redact added."""
        if len(text) < 8:
            return []
        found = (_catalogue_hits(text) if self.catalogue else []) + _rule_hits(text, self.rules)
        candidates = [hit for hit in found
                      if not is_placeholder(text[hit.start:hit.end])
                      and (hit.kind not in VALUE_RULES or secret_shaped(text[hit.start:hit.end]))]
        candidates += _rule_hits(text, self.user_rules)
        if self.decisions.allow:
            candidates = [hit for hit in candidates if digest(text[hit.start:hit.end]) not in self.decisions.allow]
        if self.decisions.redact:
            candidates += _decided(text, self.decisions.redact)
        candidates.sort(key=lambda hit: (hit.start, -(hit.end - hit.start)))
        merged: list[Hit] = []
        for hit in candidates:
            if hit.end <= hit.start:
                continue
            if merged and hit.start < merged[-1].end:
                last = merged[-1]
                merged[-1] = Hit(last.start, max(last.end, hit.end), last.kind)
            else:
                merged.append(hit)
        return merged
