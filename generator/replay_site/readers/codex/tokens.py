"""Codex token counts into the model's Usage (a response's own counts, or what a running total grew
by), and the service tier they are billed at."""
from __future__ import annotations

from typing import Any

from replay_site.model import Usage


def usage_of(raw: Any) -> Usage | None:
    """Codex counts cached input inside input_tokens; the model keeps uncached input only."""
    if not isinstance(raw, dict):
        return None

    def num(key: str) -> int:
        value = raw.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    cached = num("cached_input_tokens") or num("cache_read_input_tokens")
    written = num("cache_write_input_tokens")
    return Usage(
        input=max(0, num("input_tokens") - cached - written),
        output=num("output_tokens"),
        cache_read=cached,
        cache_write_5m=written,
        reasoning=num("reasoning_output_tokens"),
    )


def grown(now: Usage, before: Usage) -> Usage | None:
    """What a running total grew by (None when it did not grow: a reset, or a repeat)."""
    delta = Usage(now.input - before.input, now.output - before.output, now.cache_read - before.cache_read,
                  now.cache_write_5m - before.cache_write_5m, 0, now.reasoning - before.reasoning)
    if min(delta.input, delta.output, delta.cache_read, delta.cache_write_5m, delta.reasoning) < 0:
        return None
    return delta or None


# Codex's `service_tier` setting: "fast" is its name for priority processing (billed at the
# priority rate); "flex" is the flex rate; "default", "auto" and the rest the standard rate.
_TIERS = {"fast": "priority", "priority": "priority", "flex": "flex"}


def service_tier(value: Any) -> dict[str, str]:
    """A Codex service tier as the price table's request keys ({} for the standard rate)."""
    tier = _TIERS.get(value.strip().lower()) if isinstance(value, str) else None
    return {"service_tier": tier} if tier else {}
