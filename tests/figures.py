"""Shared by the figure tests: literal price rates, a tally of model responses worked out
from raw lines, and the corpus built once per test module. Nothing here calls the readers or
costs.py to learn a figure: that is what keeps the tests' route independent. The corpus site
they check is the `built` fixture in conftest.py."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

# Rates in USD per million tokens, copied once from genai-prices 0.2.3's bundled data
# (the version pyproject pins). Literals on purpose: the test must not call the code under
# test to learn the prices. Order: input, output, cache read, cache write 5m, cache write 1h.
# Tiered models bill EVERY token at the tier rate once the request's total input
# (uncached + cache read + cache write) is over the threshold (genai-prices' "cliff" tiers).
#   claude-sonnet-4-5: 3 / 15 / 0.3 / 3.75 / 6, over 200k input: 6 / 22.5 / 0.6 / 7.5 / 12
#   claude-sonnet-5:   2 / 10 / 0.2 / 2.5 / 4
#   gpt-5.5:           5 / 30 / 0.5 (no cache write), over 272k input: 10 / 45 / 1
#   gpt-5.4:           2.5 / 15 / 0.25, over 272k input: 5 / 22.5 / 0.5
#   gpt-5 (gpt-5-codex resolves to it): 1.25 / 10 / 0.125
#   o4-mini:           1.1 / 4.4 / 0.275
#   gpt-4o:            2.5 / 10 / 1.25
# local/mock-*, scripted-planner-v2, ollama/gemma3:4b have no entry: unpriced.


@dataclass(frozen=True)
class Rates:
    input: float
    output: float
    cache_read: float = 0.0
    write_5m: float = 0.0
    write_1h: float = 0.0
    tier_start: int | None = None
    tier: Rates | None = None


SONNET_4_5 = Rates(3, 15, 0.3, 3.75, 6, 200_000, Rates(6, 22.5, 0.6, 7.5, 12))
RATES = {
    "claude-sonnet-4-5-20250929": SONNET_4_5,
    "anthropic/claude-sonnet-5": Rates(2, 10, 0.2, 2.5, 4),
    "gpt-5.5": Rates(5, 30, 0.5, 0, 0, 272_000, Rates(10, 45, 1)),
    "openai/gpt-5.5": Rates(5, 30, 0.5, 0, 0, 272_000, Rates(10, 45, 1)),
    "gpt-5.4": Rates(2.5, 15, 0.25, 0, 0, 272_000, Rates(5, 22.5, 0.5)),
    "gpt-5-codex": Rates(1.25, 10, 0.125),
    "o4-mini": Rates(1.1, 4.4, 0.275),
    "gpt-4o": Rates(2.5, 10, 1.25),
}


@dataclass
class Tally:
    """Tokens and dollars of a list of model responses, as a reader of the raw log sees them."""

    input: int = 0  # uncached only
    output: int = 0
    cache_read: int = 0
    write_5m: int = 0
    write_1h: int = 0
    usd: float = 0.0
    responses: int = 0
    unpriced: int = 0

    def add(self, model: str | None, input: int, output: int, cache_read: int = 0,
            write_5m: int = 0, write_1h: int = 0) -> None:
        self.input += input
        self.output += output
        self.cache_read += cache_read
        self.write_5m += write_5m
        self.write_1h += write_1h
        self.responses += 1
        rates = RATES.get(model or "")
        if rates is None:
            self.unpriced += 1
            return
        whole_input = input + cache_read + write_5m + write_1h
        if rates.tier and whole_input > rates.tier_start:
            rates = rates.tier
        self.usd += (input * rates.input + output * rates.output + cache_read * rates.cache_read
                     + write_5m * rates.write_5m + write_1h * rates.write_1h) / 1e6

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(getattr(self, f) + getattr(other, f) for f in self.__dataclass_fields__))


def lines(path: Path) -> list[dict]:
    """Every JSON object line; the corpus has deliberately broken lines, which carry no usage."""
    found = []
    for text in path.read_text(encoding="utf-8").splitlines():
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def assert_figures(summary: dict, tally: Tally) -> None:
    """sessions.json's per-session figures against the hand tally (cost rounded to 6 places there)."""
    assert (summary["input_tokens"], summary["output_tokens"], summary["cache_read_tokens"],
            summary["cache_write_tokens"]) == (tally.input, tally.output, tally.cache_read,
                                               tally.write_5m + tally.write_1h)
    assert summary["unpriced_steps"] == tally.unpriced
    if tally.responses == tally.unpriced:
        # Nothing priced: unknown, never $0.
        assert summary["cost_usd"] is None and summary["cost_source"] == "unknown"
    else:
        assert summary["cost_usd"] == pytest.approx(tally.usd, abs=2e-6)
        assert summary["cost_source"] == "estimate"
    assert summary["cost_is_lower_bound"] == (0 < tally.unpriced)


def summary_of(document: dict, source: str, parent: bool | None = None) -> dict:
    found = [s for s in document["sessions"] if s["source"] == source
             and (parent is None or (s["parent"] is None) == parent)]
    assert len(found) == 1, [s["id"] for s in found]
    return found[0]


# --- Claude Code ---------------------------------------------------------------------------
