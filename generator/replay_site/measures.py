"""Measured values a log records (rewards): NaN and the infinities, which Python writers log as
bare tokens (`NaN`, `Infinity`), are kept as values and shown as such, never summed."""
from __future__ import annotations

import math


def finite(value: float | None) -> float | None:
    """A number that can be summed: NaN and the infinities (which Python writers log as bare
    tokens, kept as values) are not."""
    return value if value is not None and math.isfinite(value) else None


def measured(value: float) -> str:
    """A logged measure (a reward) as short as it stays exact (`%g`); NaN and the infinities
    named as such."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return f"{value:g}"
