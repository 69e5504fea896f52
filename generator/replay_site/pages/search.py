"""Full-text search that works from file:// (no server, and browsers refuse fetch() there):
every search file is a script the page adds with a <script> element.

Three kinds of files, so that the first search on a site of thousands of sessions loads little:
- `assets/search/<slug>.js`, one shard per session, written in pass 2 beside its pages: each
  step's searchable text (prose, thinking, errors, tool names, arguments, diffs, outputs) with
  the link to the page that holds the step. A text longer than HEAD + TAIL characters is
  indexed by its first HEAD and last TAIL characters (the part a reader sees first, and where
  errors and summaries usually are); a page shows at least these of any text it cuts, so a
  hit always lands on words the page shows.
- `assets/search/<slug>.terms`, the session's distinct words, one per line, written with the
  shard so that the end of a build (incremental or not) never reads shards again.
- At the end of the build, `assets/search-index.js` (every session's slug, title, page and
  shard size; past SESSION_CHUNK sessions, the first SESSION_CHUNK, the rest in
  `assets/search/sessions/<k>.js`, so a first search loads under 1 MB at any size) and `assets/search/terms/<xx>.js`, a word -> sessions map split into buckets by
  the word's first two characters (three for a bucket past SPLIT_BYTES). A query loads the
  index, the buckets of its words, then only the shards of sessions that hold every word, in
  the index's order, within a byte budget.

Words are runs of letters and digits, lowercased; the browser splits queries the same way
(`[\\p{L}\\p{N}]+`). Words of one character are not in the term map (the shards still match them).
"""
from __future__ import annotations

import os
import re
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from replay_site import ansi
from replay_site.figures.ledger import command_title
from replay_site.figures.summary import SessionSummary
from replay_site.model import Step, ToolCall
from replay_site.pages import paging

HEAD = 8_000  # characters kept from the start of a long output or diff
TAIL = 2_000  # and from its end
MAX_WORD = 40  # longer "words" are hashes and base64: not worth a term-map entry
SPLIT_BYTES = 200_000  # a term-map bucket larger than this is split by three characters
TITLE = 100  # characters of a session's title in the site index (what a hit shows)
# Rows of the session table in the site index (~180 bytes each); a larger site keeps the
# rest in assets/search/sessions/<k>.js, loaded for the sessions a query's words name.
SESSION_CHUNK = 2000

_WORD = re.compile(r"[^\W_]+")
# Bytes of UTF-8 text that end a word: every ASCII byte but letters and digits (a byte of a
# non-ASCII character stays, and its token is split by _WORD). Translating and splitting the
# bytes takes half the time of _WORD over the whole text (issue 20).
_ASCII_SEPARATORS = bytes(byte if byte >= 128 or chr(byte).isalnum() else 32 for byte in range(256))
# Tokens of a session whose words are known already (SessionShard.add) are remembered up to
# this many, then forgotten all at once: the medium benchmark corpus' steps hold 1.55 million
# distinct tokens, its sessions 129,000.
SEEN_TOKENS = 50_000
# Non-ASCII separators common in agents' logs (Claude Code numbers the lines it reads `1→`),
# replaced in the bytes first so that their tokens need no regex.
_COMMON_SEPARATORS = [char.encode() for char in "→…—–·•✓✗│─└├" if not char.isalnum()]


def shard_name(slug: str) -> str:
    return f"assets/search/{slug}.js"


def terms_name(slug: str) -> str:
    return f"assets/search/{slug}.terms"


def _head_and_tail(text: str) -> str:
    if len(text) <= HEAD + TAIL:
        return text
    return text[:HEAD] + " … " + text[-TAIL:]


def _call_parts(call: ToolCall) -> Iterable[str]:
    yield call.name
    if call.code:
        yield command_title(call)
        yield _head_and_tail(call.code)
    elif isinstance(call.arguments, dict):
        yield _head_and_tail(" ".join(str(value) for value in call.arguments.values()))
    elif isinstance(call.arguments, str):
        yield _head_and_tail(call.arguments)
    for change in call.changes:
        yield change.path
        yield _head_and_tail(change.diff)
    yield from (todo.text for todo in call.todos)
    yield _head_and_tail(ansi.plain(call.output or ""))  # what the page shows, not escape codes


def _step_tokens(step: Step) -> list[str]:
    """Everything a reader can see of a step, split at white space."""
    parts = [step.title or "", _head_and_tail(step.text), _head_and_tail(step.thinking), _head_and_tail(step.error or "")]
    for call in step.tool_calls:
        parts.extend(_call_parts(call))
    for detail in step.details:
        parts += [detail.label, _head_and_tail(detail.text)]
    parts.extend(_head_and_tail(note) for note in step.memory_notes)
    # str.split() folds exactly what re's \s+ matches (Py_UNICODE_ISSPACE), 4x faster
    return " ".join(p for p in parts if p).split()


def _assign(global_name: str, key: str, value: object) -> bytes:
    """A script that stores `value` under `key` in a global object (created on first use)."""
    return _assign_json(global_name, key, orjson.dumps(value))


def _assign_json(global_name: str, key: str, *value: bytes) -> bytes:
    """The script, with `value` given in parts: joined once, so a shard of a huge step is
    copied once (each `+` copied all of it again)."""
    return b"".join([_assignment(global_name, key), *value, b";\n"])


def _assignment(global_name: str, key: str) -> bytes:
    name = global_name.encode()
    return b"".join([b"(window.", name, b"=window.", name, b"||{})[", orjson.dumps(key), b"]="])


class SessionShard:
    """The shard and the word list of one session, gathered a page of steps at a time (add),
    so that a long session's steps need not be in memory together: each step is kept only
    as its encoded shard entry, in a temporary file (a 200,000-step session's took 105 MB)."""

    def __init__(self, slug: str):
        self.slug = slug
        self.shard = tempfile.TemporaryFile()  # noqa: SIM115 - open until files() gives it to the writer
        self.shard.write(_assignment("REPLAY_SHARDS", slug) + b"[")
        self.entries = 0
        self.words: set[bytes] = set()  # ASCII words as UTF-8; the others decoded (_add_words)
        self._seen: set[str] = set()  # tokens whose words are in `words` (SEEN_TOKENS)

    def add(self, steps: Iterable[Step]) -> None:
        entries = []
        for step in steps:
            tokens = _step_tokens(step)
            if not tokens:
                continue
            entries.append([step.number, paging.step_href(self.slug, step.number, "index.html"), step.kind, " ".join(tokens)])
            # no word spans white space: the words of each distinct token are the text's, and
            # those of a token an earlier step held are known already
            fresh = set(tokens)
            fresh -= self._seen
            if fresh:
                if len(self._seen) > SEEN_TOKENS:
                    self._seen.clear()
                self._seen |= fresh
                self._add_words(" ".join(fresh).lower())
        if entries:
            # without its brackets: the entries of every add() make one list
            self.shard.write(b"," if self.entries else b"")
            self.shard.write(memoryview(orjson.dumps(entries))[1:-1])
            self.entries += len(entries)

    def _add_words(self, text: str) -> None:
        """The words of `text` as _WORD finds them: runs of letters and digits between ASCII
        separators, a run holding other characters split again by _WORD."""
        data, ascii_only = text.encode(), text.isascii()
        if not ascii_only:
            for separator in _COMMON_SEPARATORS:
                if separator in data:
                    data = data.replace(separator, b" ")
        tokens = set(data.translate(_ASCII_SEPARATORS).split())
        if not ascii_only:
            others = {token for token in tokens if not token.isascii()}
            tokens -= others
            for token in others:
                tokens.update(word.encode() for word in _WORD.findall(token.decode()))
        self.words |= tokens

    def files(self) -> dict[str, bytes | BinaryIO]:
        """The shard (its file, read from the start) and the word list, by site path."""
        self.shard.write(b"];\n")
        self.shard.seek(0)
        # filtered once the words are unique: a session repeats most of its words many times
        listed = sorted(text for word in self.words if 1 < len(text := word.decode()) <= MAX_WORD)
        return {shard_name(self.slug): self.shard, terms_name(self.slug): "\n".join(listed).encode()}


def bucket_of(word: str, length: int = 2) -> str:
    """The term-map file a word lives in: its first `length` characters, [a-z0-9] or '_'."""
    key = word[:length]
    if key.isascii() and key.isalnum():  # the common case, without a loop
        return key
    return "".join(c if c.isascii() and c.isalnum() else "_" for c in key)


def _bucket_files(postings: dict[str, list[str]]) -> dict[str, bytes]:
    """Term-map buckets by a word's first two characters; a bucket past SPLIT_BYTES is split
    by the first three (its two-character words dropped: the browser does not narrow a search
    by a two-character word whose bucket is split, since as a prefix it would need them all)."""
    by_two: dict[str, dict[str, str]] = defaultdict(dict)
    for word in sorted(postings):
        by_two[bucket_of(word)][word] = ",".join(postings[word])
    files = {}
    for key, words in by_two.items():
        data = _assign("REPLAY_TERMS", key, words)
        if len(data) <= SPLIT_BYTES:
            files[key] = data
            continue
        by_three: dict[str, dict[str, str]] = defaultdict(dict)
        for word, numbers in words.items():
            if len(word) > 2:
                by_three[bucket_of(word, 3)][word] = numbers
        files.update((sub, _assign("REPLAY_TERMS", sub, part)) for sub, part in by_three.items())
    return {f"assets/search/terms/{key}.js": files[key] for key in sorted(files)}


def site_files(out: Path, summaries: list[SessionSummary]) -> dict[str, bytes]:
    """The site index and the word -> sessions buckets, from the files pass 2 wrote.
    Session numbers are positions in `summaries` (the index page's order)."""
    sessions, postings = [], defaultdict(list)
    slugs = [summary.page.rpartition("/")[2].removesuffix(".html") for summary in summaries]
    shards = _local_shards(out, slugs) if isinstance(out, Path) else _stored_shards(out, slugs)
    for number, (summary, slug, (shard_bytes, words)) in enumerate(zip(summaries, slugs, shards)):
        name = _base36(number)
        sessions.append([slug, summary.title[:TITLE], summary.page, shard_bytes])
        for word in words:
            postings[word].append(name)
    postings.pop("", None)  # the one word of an empty list
    files = _bucket_files(postings)
    buckets = [name.rsplit("/", 1)[1].removesuffix(".js") for name in files]
    head: dict[str, Any] = {"sessions": sessions[:SESSION_CHUNK], "buckets": buckets}
    if len(sessions) > SESSION_CHUNK:
        head |= {"count": len(sessions), "chunk": SESSION_CHUNK}
        for chunk in range(1, -(-len(sessions) // SESSION_CHUNK)):
            rows = sessions[chunk * SESSION_CHUNK:(chunk + 1) * SESSION_CHUNK]
            files[f"assets/search/sessions/{chunk}.js"] = _assign("REPLAY_SESSIONS", str(chunk), rows)
    files["assets/search-index.js"] = b"window.REPLAY_SEARCH=" + orjson.dumps(head) + b";\n"
    return files


def _local_shards(out: Path, slugs: list[str]) -> Iterator[tuple[int, list[str]]]:
    """Each session's shard size and words; (0, []) for a session without a shard: it stays
    listed (numbers are positions), unsearched."""
    folder = os.fspath(out)  # strings, not Paths: this runs for every session of the site
    for slug in slugs:
        try:
            shard_bytes = os.stat(os.path.join(folder, shard_name(slug))).st_size
            with open(os.path.join(folder, terms_name(slug)), "rb") as stream:
                yield shard_bytes, stream.read().decode().split("\n")
        except OSError:
            yield 0, []


def _stored_shards(out: Any, slugs: list[str]) -> list[tuple[int, list[str]]]:
    """As _local_shards, for a site in a store (a UPath): one listing for the sizes, and the
    word lists fetched together (fsspec runs the requests concurrently)."""
    if not slugs:  # fsspec's cat of no paths raises FileNotFoundError
        return []
    base = out.path.rstrip("/")
    sizes = {name.removeprefix(base).lstrip("/"): info.get("size", 0)
             for name, info in out.fs.find(f"{base}/assets/search", detail=True).items()}
    terms = out.fs.cat([f"{base}/{terms_name(slug)}" for slug in slugs], on_error="omit")
    found = []
    for slug in slugs:
        data = terms.get(f"{base}/{terms_name(slug)}")
        found.append((sizes.get(shard_name(slug), 0), data.decode().split("\n")) if data is not None else (0, []))
    return found


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        number, rest = divmod(number, 36)
        text = digits[rest] + text
        if not number:
            return text
