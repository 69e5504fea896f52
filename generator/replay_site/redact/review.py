"""What redaction would replace, for a person to review before publishing
(`replay-site redactions`): every hit in its context, the secret itself masked, with the
hash the decisions file (decisions.py) names it by."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from replay_site.model import Session
from replay_site.model_text import StringWalk
from replay_site.redact.decisions import Decisions, digest
from replay_site.redact.detect import Detector
from replay_site.redact.views import views

CONTEXT = 40  # characters shown on each side of a hit


@dataclass(frozen=True)
class ReviewHit:
    session: str  # the session's id
    source: str  # its log, relative to the source named
    kind: str  # the rule that found it
    hashed: str  # sha256 of the string: its key in the decisions file
    masked: str  # the string with all but its first characters hidden
    before: str  # what stands before it (other hits masked)
    after: str
    decision: str  # "allow", "redact" or "" (not reviewed)


def mask(secret: str) -> str:
    shown = min(4, len(secret) // 4)
    return f"{secret[:shown]}…({len(secret)} characters)"


def _in_context(view: str, detector: Detector) -> Iterable[tuple[str, str, str, str]]:
    """(kind, secret, before, after) per hit in `view`, the context with every hit masked."""
    hits = detector.find(view)
    masked_view, spans, offset = [], [], 0
    for hit in hits:
        masked_view.append(view[offset:hit.start])
        start = sum(map(len, masked_view))
        masked_view.append(mask(view[hit.start:hit.end]))
        spans.append((start, start + len(masked_view[-1])))
        offset = hit.end
    masked_view.append(view[offset:])
    shown = "".join(masked_view)
    for hit, (start, end) in zip(hits, spans):
        yield (hit.kind, view[hit.start:hit.end], " ".join(shown[max(0, start - CONTEXT):start].split()),
               " ".join(shown[end:end + CONTEXT].split()))


def review_hits(sessions: Iterable[Session], decisions: Decisions, patterns: tuple[str, ...] = ()) -> list[ReviewHit]:
    """Every distinct hit (per session, string and context) in `sessions`, read unredacted."""
    detector = Detector(patterns)
    found: dict[tuple, ReviewHit] = {}
    for session in sessions:
        texts: dict[str, None] = {}

        def collect(text: str, texts: dict[str, None] = texts) -> str:
            texts[text] = None
            return text

        StringWalk(collect).session(session)
        for name in (session.id, session.source):
            texts[name] = None
        for text in texts:
            for view in views(text):
                for kind, secret, before, after in _in_context(view, detector):
                    hashed = digest(secret)
                    decision = "allow" if hashed in decisions.allow else "redact" if hashed in decisions.redact else ""
                    hit = ReviewHit(session.id, session.source, kind, hashed, mask(secret), before, after, decision)
                    found.setdefault((session.id, hashed, before, after), hit)
    return list(found.values())
