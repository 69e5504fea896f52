"""Codex token counts into the model's Usage: a response's own counts, or what a running total grew by."""
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
