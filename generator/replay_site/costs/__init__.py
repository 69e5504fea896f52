"""Step costs: kept from the log, else estimated from tokens, else marked unknown.

Estimates come from `genai-prices` (pinned in pyproject, bundled data, never the
network) unless a `--prices FILE` overrides the model. A model nobody prices
gets `Cost.unknown()`, never $0, so totals can say "at least $X".

Overrides file (TOML; rates are USD per million tokens)::

    [models."local/mock-model"]
    input_per_mtok = 0.1            # required: uncached input
    output_per_mtok = 0.4           # required: output (reasoning included)
    cache_read_per_mtok = 0.01      # optional, default: input_per_mtok
    cache_write_5m_per_mtok = 0.125 # optional, default: input_per_mtok
    cache_write_1h_per_mtok = 0.2   # optional, default: cache_write_5m_per_mtok

Keys are matched case-insensitively against, in order: the step's model string
as written ("local/mock-model"), the same without its provider prefix
("mock-model"), and the genai-prices model id it resolves to, so that
`[models."claude-sonnet-4-5"]` also covers "claude-sonnet-4-5-20250929".
A missing cache rate falls back to what the provider would otherwise bill those
tokens as (plain input), so an override never makes cached tokens free by omission.

Lookups in the table are remembered between runs (the price memo, in replay-site's cache
folder, as plain data), so that a build pricing only models it priced before does not load
genai-prices at all.

genai-prices' token convention (checked in tests/test_costs.py): its
`input_tokens` is the TOTAL input, cache reads and writes included, and
`cache_write_tokens` is the total of both cache lifetimes. Our `Usage.input` is
uncached input only, so `table.genai_usage` adds the cache counts back in; passing
`Usage.input` straight through would raise (cache > input) or underbill.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from replay_site.costs.table import resolve, table_version
from replay_site.model import Cost, Session, Step, Usage

__all__ = [
    "ModelRates",
    "PriceBook",
    "PriceFileError",
    "load_price_overrides",
    "price_session",
    "price_step",
    "pricing_source",
]

_MTOK = Decimal(1_000_000)


# Steps with no timestamp are priced at one fixed instant instead of "now" (the
# library default), so the same input always builds the same figures. Far in
# the future = the newest prices in the pinned table; noon UTC = outside the
# off-peak windows some providers (DeepSeek) discount.
_UNDATED = datetime(9999, 1, 1, 12, tzinfo=UTC)


class PriceFileError(ValueError):
    """A `--prices` file that cannot be read or has a wrong shape; the message names the file."""


@dataclass(frozen=True)
class ModelRates:
    """One model's override rates, USD per million tokens."""

    input_per_mtok: Decimal
    output_per_mtok: Decimal
    cache_read_per_mtok: Decimal | None = None
    cache_write_5m_per_mtok: Decimal | None = None
    cache_write_1h_per_mtok: Decimal | None = None

    def usd(self, usage: Usage) -> float:
        cache_read = self.cache_read_per_mtok if self.cache_read_per_mtok is not None else self.input_per_mtok
        write_5m = self.cache_write_5m_per_mtok if self.cache_write_5m_per_mtok is not None else self.input_per_mtok
        write_1h = self.cache_write_1h_per_mtok if self.cache_write_1h_per_mtok is not None else write_5m
        total = (
            usage.input * self.input_per_mtok
            + usage.output * self.output_per_mtok  # reasoning is inside output already
            + usage.cache_read * cache_read
            + usage.cache_write_5m * write_5m
            + usage.cache_write_1h * write_1h
        )
        return float(total / _MTOK)


@dataclass(frozen=True)
class PriceBook:
    """Override rates by lower-cased model key, plus the file they came from (for the footer)."""

    overrides: dict[str, ModelRates] = field(default_factory=dict)
    path: Path | None = None

    def rates_for(self, *keys: str | None) -> ModelRates | None:
        for key in keys:
            if key and (rates := self.overrides.get(key.lower())):
                return rates
        return None


_RATE_KEYS = {
    "input_per_mtok",
    "output_per_mtok",
    "cache_read_per_mtok",
    "cache_write_5m_per_mtok",
    "cache_write_1h_per_mtok",
}
_REQUIRED_KEYS = ("input_per_mtok", "output_per_mtok")


def load_price_overrides(path: Path) -> PriceBook:
    """Read a `--prices` TOML file (shape in the module docstring). Typos are errors, not silent $0."""
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PriceFileError(f"{path}: cannot read prices: {exc}") from exc
    extra = set(raw) - {"models"}
    if extra:
        raise PriceFileError(f"{path}: unknown top-level key(s) {sorted(extra)}; expected only [models.\"NAME\"]")
    models = raw.get("models", {})
    if not isinstance(models, dict):
        raise PriceFileError(f"{path}: 'models' must be a table of [models.\"NAME\"] tables")
    overrides: dict[str, ModelRates] = {}
    for name, table in models.items():
        where = f"{path}: models.{name!r}"
        if not isinstance(table, dict):
            raise PriceFileError(f"{where}: expected a table of rates")
        unknown = set(table) - _RATE_KEYS
        if unknown:
            raise PriceFileError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(_RATE_KEYS)}")
        missing = [key for key in _REQUIRED_KEYS if key not in table]
        if missing:
            raise PriceFileError(f"{where}: missing {missing}")
        overrides[name.lower()] = ModelRates(**{key: _rate(where, key, value) for key, value in table.items()})
    return PriceBook(overrides, path)


def _rate(where: str, key: str, value: Any) -> Decimal:
    # bool is an int subclass: `input_per_mtok = true` must not become $1.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PriceFileError(f"{where}: {key} must be a number, got {value!r}")
    # Via str so 0.1 stays 0.1 rather than its binary float expansion.
    rate = Decimal(str(value))
    if not rate.is_finite() or rate < 0:
        raise PriceFileError(f"{where}: {key} must be a finite number >= 0, got {value!r}")
    return rate


def pricing_source(book: PriceBook | None = None) -> str:
    """Where estimates come from, for page footers and sessions.json.

    Only the overrides file's name is given: built pages never carry absolute paths.
    """
    source = f"genai-prices {table_version()}"
    if book is not None and book.path is not None:
        source += f" + overrides {book.path.name}"
    return source


def price_session(session: Session, book: PriceBook | None = None) -> None:
    """Set `step.cost` on every step of `session` and all its descendants (in place)."""
    book = book or PriceBook()
    for each in session.walk():
        # A step without a model of its own takes the session's model when that is unambiguous.
        price_steps(each.steps, book, each.declared_models[0] if len(each.declared_models) == 1 else None)


def price_steps(steps: list[Step], book: PriceBook, fallback_model: str | None = None) -> None:
    """Set `step.cost` on each of `steps` (in place), `fallback_model` standing in for a step's missing model."""
    for step in steps:
        step.cost = price_step(step, book, fallback_model)
        if step.cost is not None and step.model is None:
            # Record whom the step was priced as: totals list unpriced models and the
            # per-model table groups by step.model, else "unknown model" with no name.
            step.model = fallback_model


def price_step(step: Step, book: PriceBook, fallback_model: str | None = None) -> Cost | None:
    """The cost a step should carry: the log's, an estimate, unknown, or None (nothing to price);
    a lower bound (`partial`) when the step's usage is known to be short."""
    cost = _price_step(step, book, fallback_model)
    if cost is not None and step.usage is not None and step.usage.partial and cost.usd is not None:
        cost = Cost(cost.usd, cost.source, partial=True, tier=cost.tier)
    return cost


# Anthropic bills US-only inference (`inference_geo: "us"`, data residency) at 1.1 times every
# token rate; genai-prices has no variant for it.
_RESIDENCY = {"us": Decimal("1.1")}


def tier_name(tier: dict[str, str]) -> str:
    """The tier a step was served at, as a page names it ("" for the standard rate)."""
    parts = [f"{key.replace('_', ' ')} {value}" for key, value in sorted(tier.items())]
    return ", ".join(parts)


def _price_step(step: Step, book: PriceBook, fallback_model: str | None) -> Cost | None:
    if step.cost is not None and step.cost.source == "log":
        return step.cost
    if not step.usage:  # None or all-zero counts (e.g. Claude's "<synthetic>" notices)
        return None
    model = step.model or fallback_model
    if not model:
        return Cost.unknown()
    bare = _without_provider(model)
    resolved = resolve(model)
    rates = book.rates_for(model, bare, resolved.model_id if resolved else None)
    if rates is not None:
        return Cost(rates.usd(step.usage), "estimate")
    if resolved is None:
        return Cost.unknown()
    plan = resolved.plan_at(step.timestamp or _UNDATED, step.tier or None)
    usd = None if plan is None else plan.usd(step.usage)
    if usd is not None and resolved.model_id.startswith("claude") and step.tier.get("inference_geo") in _RESIDENCY:
        usd *= _RESIDENCY[step.tier["inference_geo"]]
    return Cost.unknown() if usd is None else Cost(float(usd), "estimate", tier=tier_name(step.tier))


def _without_provider(model: str) -> str:
    return model.split("/", 1)[1] if "/" in model else model
