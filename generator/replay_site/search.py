"""Site-wide search that works from file://: no server, no fetch() (browsers refuse it on
file:// pages), so the index is a script, `assets/search.js`, that sets a global the page's
own JavaScript searches. Each session's entries are written as a shard beside its page in
pass 2 (so an incremental build keeps them with the page) and joined at the end.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

import orjson

from .model import Session, Step

EXCERPT = 600  # characters of each step kept for searching and showing


def shard_name(slug: str) -> str:
    return f"search/{slug}.json"


def _step_text(step: Step) -> str:
    parts = [step.title or "", step.text, step.error or ""]
    for call in step.tool_calls:
        parts.append(call.name)
        if call.code:
            parts.append(call.code)
        elif isinstance(call.arguments, str):
            parts.append(call.arguments)
        elif isinstance(call.arguments, dict):
            parts.append(" ".join(str(value) for value in call.arguments.values()))
        parts.extend(change.path for change in call.changes)
        parts.append((call.output or "")[:EXCERPT])
    return re.sub(r"\s+", " ", " ".join(p for p in parts if p)).strip()[:EXCERPT]


def session_shard(session: Session, page: str) -> bytes:
    """[page, step, kind, session title, text] for every step with something to find."""
    entries = [[page, step.number, step.kind, session.title or session.id, text]
               for step in session.steps if (text := _step_text(step))]
    return orjson.dumps(entries)


def index_script(shards: Iterable[bytes]) -> bytes:
    """The search index as one script, shards in the index's order."""
    entries = b",".join(shard[1:-1] for shard in shards if len(shard) > 2)
    return b"window.REPLAY_SEARCH = [" + entries + b"];\n"
