"""Sessions as a library: the one loading API. `ReadOptions` says how logs are read (which
reader, which prices, whether credentials are redacted); `read_source` reads one discovered
source, `iter_sessions` every session under some roots, `load_session` one by path, id or
--last. The site builder and every command read through here, so all see the same figures.
"""
from __future__ import annotations

import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from replay_site.costs import PriceBook, price_session, price_steps
from replay_site.discover import DiscoveryError, default_roots, discover, pick_readers
from replay_site.model import Problem, Session, Step
from replay_site.readers import SessionSource, SessionStream, jsonl, registry
from replay_site.readers.drift import field_findings, line_kind
from replay_site.readers.files import plain_name
from replay_site.redact import NotTheSame, PartsRedaction, redact_session
from replay_site.redact.anonymize import anonymize_session
from replay_site.redact.decisions import Decisions


@dataclass(frozen=True)
class ReadOptions:
    format: str = "auto"  # a reader's name, or auto
    prices: PriceBook | None = None  # overrides of the built-in price table (--prices)
    redact: bool = True  # replace credentials in every text (redact/)
    redact_patterns: tuple[str, ...] = ()  # user regexes redacted as well (--redact-pattern)
    anonymize: bool = False  # home paths, user and host names, e-mail addresses replaced (--anonymize)
    decisions: Decisions = field(default_factory=Decisions)  # strings allowed or always redacted (.replay-site-redact.toml)


def examples_dir() -> Path:
    """The bundled example sessions: one clean, realistic session per format, package data
    (tests/data holds the deliberately broken fixtures, never shipped)."""
    return Path(__file__).parent / "examples"


def default_sources(format_name: str = "auto") -> list[Path]:
    return default_roots(pick_readers(format_name))


def read_source(source: SessionSource, options: ReadOptions) -> tuple[list[Session], list[Problem]]:
    """Read, price and (if asked) redact and anonymize one source. A reader that fails is a reported
    problem, never a failed build."""
    try:
        sessions = registry()[source.format].read(source)
    except Exception as exc:  # a reader bug on one odd file must not cost the user the whole site
        return [], [unread(exc, source.rel)]
    for session in sessions:
        _mark_kept(session, source)
        price_session(session, options.prices)
        if options.redact:
            redact_session(session, options.redact_patterns, options.decisions)
        if options.anonymize:
            anonymize_session(session)
    return sessions, []


class StreamedRead:
    """One source's one session read, priced and redacted as the reader gives its steps out
    (`Reader.stream`): `parts` once, then `session`, the session without its steps. A long
    log's session is then never held whole. Each step comes out as `read_source` would give
    it, or NotTheSame is raised (read the source whole instead): a session's own model stands
    in for a step without one (its declared models are known only at the end), and a secret
    found late by its key must not stand in an earlier part (PartsRedaction)."""

    def __init__(self, stream: SessionStream, options: ReadOptions, source: SessionSource) -> None:
        self._stream, self._book, self._source = stream, options.prices or PriceBook(), source
        self._redaction = PartsRedaction(options.redact_patterns, options.decisions) if options.redact else None

    def parts(self, size: int) -> Iterator[list[Step]]:
        """The steps in order, `size` at a time (the last part maybe fewer)."""
        part: list[Step] = []
        for step in self._stream.steps():
            part.append(step)
            if len(part) == size:
                yield self._settled(part)
                part = []
        if part:
            yield self._settled(part)

    def _settled(self, part: list[Step]) -> list[Step]:
        price_steps(part, self._book)
        if self._redaction is not None:
            self._redaction.steps(part)
        return part

    def session(self) -> Session:
        session = self._stream.session()
        if session.declared_models:
            raise NotTheSame("the session declares its model: steps without one were priced without it")
        if self._redaction is not None:
            self._redaction.session(session)
        _mark_kept(session, self._source)
        return session


def stream_source(source: SessionSource, options: ReadOptions) -> StreamedRead | None:
    """`source` read as a stream, when its reader can give one out and nothing asked needs
    the whole session at once (--anonymize finds user names anywhere before replacing any)."""
    stream = getattr(registry()[source.format], "stream", None)
    if stream is None or options.anonymize:
        return None
    streamed = stream(source)
    return StreamedRead(streamed, options, source) if streamed is not None else None


def _mark_kept(session: Session, source: SessionSource) -> None:
    """A session read from the archive's copy of a log gone from disk says so, its children too."""
    if source.kept_since:
        for each in session.walk():
            each.kept_since = source.kept_since


def iter_sessions(roots: list[Path], options: ReadOptions = ReadOptions(),
                  problems: list[Problem] | None = None) -> Iterator[Session]:
    """Every session under `roots`, children included (parents first), read and priced
    (and with credentials replaced when `options.redact`)."""
    problems = [] if problems is None else problems
    for source in discover(roots, pick_readers(options.format), problems):
        sessions, failures = read_source(source, options)
        problems.extend(failures)
        for top in sessions:
            yield from top.walk()


# Findings of one field kept in full; the rest of them counted (a renamed field is on every line).
FIELD_FINDINGS_SHOWN = 3


def field_drift(roots: list[Path], format_name: str = "auto") -> tuple[list[str], dict[tuple[str, str], str]]:
    """`formats --check`, read again line by line: each field that does not fit its kind
    (readers/drift.py) as "file:line: kind: field …", and where each line kind is first seen
    ("file:line", by format and kind), for the kinds no reader knows."""
    findings: list[str] = []
    first_seen: dict[tuple[str, str], str] = {}
    repeats: dict[tuple[str, str, str, str], int] = {}
    for source in discover(roots, pick_readers(format_name), []):
        kinded = line_kind(source.format)
        for path in source.files:
            if plain_name(path).suffix != ".jsonl":
                continue
            label = source.label(path)
            for number, obj in jsonl.iter_objects(path, [], label):
                kind = kinded(obj) or "(no type)"
                first_seen.setdefault((source.format, kind), f"{label}:{number}")
                for kind_, field_name, wrong in field_findings(source.format, obj):
                    key = (source.format, kind_, field_name, wrong)
                    repeats[key] = repeats.get(key, 0) + 1
                    if repeats[key] <= FIELD_FINDINGS_SHOWN:
                        findings.append(f"{label}:{number}: {source.format} {kind_}: field {field_name}: {wrong}")
    findings.extend(f"{fmt} {kind}: field {field_name}: {wrong} on {times - FIELD_FINDINGS_SHOWN:,} more line(s)"
                    for (fmt, kind, field_name, wrong), times in repeats.items() if times > FIELD_FINDINGS_SHOWN)
    return findings, first_seen


# The candidates an ambiguous id names.
AMBIGUOUS_LISTED = 10


def load_session(reference: str | None, roots: list[Path], options: ReadOptions = ReadOptions()) -> Session:
    """One session: `reference` is a log path, a session id (or unique prefix), or None for
    the most recently started session under `roots`."""
    if reference and Path(reference).exists():
        found = list(iter_sessions([Path(reference)], options))
        if not found:
            raise DiscoveryError(f"{reference}: no readable session found")
        return found[0]
    candidates = list(iter_sessions(roots, options))
    if reference is None:
        dated = [s for s in candidates if s.started_at and not s.parent_id]
        if not dated:
            raise DiscoveryError("no dated session found")
        return max(dated, key=lambda s: (_sortable(s), s.id))
    exact = [s for s in candidates if s.id == reference]
    matches = exact or [s for s in candidates if s.id.startswith(reference)]
    if not matches:
        raise DiscoveryError(f"no session with id {reference!r} under {', '.join(map(str, roots))}")
    if len(matches) > 1:
        named = "; ".join(f"{s.id} ({s.source})" for s in matches[:AMBIGUOUS_LISTED])
        more = f"; and {len(matches) - AMBIGUOUS_LISTED} more" if len(matches) > AMBIGUOUS_LISTED else ""
        raise DiscoveryError(f"{len(matches)} sessions with id {reference!r}: {named}{more}; give more of the id")
    return matches[0]


def unread(exc: BaseException, where: str) -> Problem:
    """A source whose reader failed: a file skipped, in the account of what was read."""
    return Problem("skipped_file", f"could not be read ({one_line(exc)})", where)


def one_line(exc: BaseException) -> str:
    """An exception in one line, as warnings and notice pages show it."""
    return traceback.format_exception_only(exc)[-1].strip()


def _sortable(session: Session) -> str:
    return session.started_at.isoformat() if session.started_at else ""
