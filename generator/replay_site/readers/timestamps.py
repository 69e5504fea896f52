"""Timestamp parsing shared by readers: ISO strings (aware or naive) and epoch numbers.

Every time a reader returns is aware UTC, except gptme's: gptme logs naive local time and its
sessions say so (`Session.local_time`). Naive times in the other formats are read as UTC:
Codex, Claude Code and rlm-code write UTC (Codex and Claude with a `Z`; a naive one is a
copy or a hand edit); Glue's first builds wrote local time, which its reader places in UTC
with the offset that meta.json's start_time gives."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any


def parse_time(value: Any) -> datetime | None:
    """An aware UTC datetime for ISO strings with an offset or Z and for epoch seconds;
    a naive datetime for ISO strings without one (the caller knows whether that is local);
    None for anything unreadable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value  # milliseconds since the epoch
        try:
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed.astimezone(timezone.utc) if parsed.tzinfo else parsed


def aware_utc(moment: datetime | None) -> datetime | None:
    """A naive time read as UTC; aware ones as they are."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=timezone.utc)


def utc_time(value: Any) -> datetime | None:
    """`parse_time` for formats whose naive times are UTC: always aware, so a log mixing
    times with and without an offset still orders and subtracts."""
    return aware_utc(parse_time(value))
