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

genai-prices' token convention (checked in tests/test_costs.py): its
`input_tokens` is the TOTAL input, cache reads and writes included, and
`cache_write_tokens` is the total of both cache lifetimes. Our `Usage.input` is
uncached input only, so `_genai_usage` adds the cache counts back in; passing
`Usage.input` straight through would raise (cache > input) or underbill.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from replay_site.model import Cost, Session, Step, Usage

if TYPE_CHECKING:
    from genai_prices import types as gp
    from genai_prices.data_snapshot import DataSnapshot

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


@lru_cache(maxsize=1)
def load_price_table() -> DataSnapshot:
    """Our own snapshot of the bundled table rather than `genai_prices.calc_price`: that goes
    through a process-wide snapshot which `UpdatePrices` may swap for one fetched over the
    network. Pricing must be offline and reproducible. Loaded on first use: importing the
    table costs more than a whole rebuild with nothing to price."""
    from genai_prices import data
    from genai_prices.data_snapshot import DataSnapshot

    return DataSnapshot(providers=data.providers, from_auto_update=False)

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
    source = f"genai-prices {version('genai-prices')}"
    if book is not None and book.path is not None:
        source += f" + overrides {book.path.name}"
    return source


def price_session(session: Session, book: PriceBook | None = None) -> None:
    """Set `step.cost` on every step of `session` and all its descendants (in place)."""
    book = book or PriceBook()
    for each in session.walk():
        # A step without a model of its own takes the session's model when that is unambiguous.
        fallback_model = each.declared_models[0] if len(each.declared_models) == 1 else None
        for step in each.steps:
            step.cost = price_step(step, book, fallback_model)
            if step.cost is not None and step.model is None:
                # Record whom the step was priced as: totals list unpriced models and the
                # per-model table groups by step.model, else "unknown model" with no name.
                step.model = fallback_model


def price_step(step: Step, book: PriceBook, fallback_model: str | None = None) -> Cost | None:
    """The cost a step should carry: the log's, an estimate, unknown, or None (nothing to price)."""
    if step.cost is not None and step.cost.source == "log":
        return step.cost
    if not step.usage:  # None or all-zero counts (e.g. Claude's "<synthetic>" notices)
        return None
    model = step.model or fallback_model
    if not model:
        return Cost.unknown()
    bare = _without_provider(model)
    resolved = _resolve(model)
    rates = book.rates_for(model, bare, resolved[1].id if resolved else None)
    if rates is not None:
        return Cost(rates.usd(step.usage), "estimate")
    if resolved is None:
        return Cost.unknown()
    usd = _genai_usd(resolved, step.usage, step.timestamp or _UNDATED)
    return Cost.unknown() if usd is None else Cost(usd, "estimate")


def _without_provider(model: str) -> str:
    return model.split("/", 1)[1] if "/" in model else model


# Readers hand us the same few model strings thousands of times; a failed lookup
# in genai-prices scans every provider and is not cached there, so cache both
# hits and misses here. Bounded: model strings come from untrusted logs.
@lru_cache(maxsize=1024)
def _resolve(model: str) -> tuple[gp.Provider, gp.ModelInfo] | None:
    """genai-prices' provider and model for a model string, honouring a "provider/" prefix."""
    from genai_prices.data_snapshot import find_provider_by_id

    snapshot = load_price_table()
    attempts: list[tuple[str, str | None]] = []
    if "/" in model:
        prefix, rest = model.split("/", 1)
        # "anthropic/claude-..." is a provider hint; "local/x" is not a provider, just a name.
        if find_provider_by_id(snapshot.providers, prefix):
            attempts.append((rest, prefix))
        attempts.append((rest, None))
    attempts.append((model, None))
    # Bedrock ids ("jp.anthropic.claude-haiku-4-5-20251001-v1:0", logged behind a
    # "converse/" API prefix) only resolve with AWS named as the provider.
    attempts.extend((name, "aws") for name, _ in list(attempts) if "." in name)
    for model_ref, provider_id in attempts:
        try:
            return snapshot.find_provider_model(model_ref, None, provider_id, None)
        except LookupError:
            continue
    return None


def _genai_usage(usage: Usage) -> gp.Usage:
    """Our usage in genai-prices' terms: input and cache writes are totals there (see module doc)."""
    from genai_prices.types import Usage as GenaiUsage

    cache_write = usage.cache_write_5m + usage.cache_write_1h
    return GenaiUsage(
        input_tokens=usage.input + usage.cache_read + cache_write,
        output_tokens=usage.output,  # includes reasoning; reasoning is not passed, so never billed twice
        cache_read_tokens=usage.cache_read,
        cache_write_tokens=cache_write,
        cache_write_5m_tokens=usage.cache_write_5m,
        cache_write_1h_tokens=usage.cache_write_1h,
    )


def _genai_usd(resolved: tuple[gp.Provider, gp.ModelInfo], usage: Usage, when: datetime) -> float | None:
    provider, model = resolved
    # A table entry without token rates (image or per-request models) would
    # compute $0 for tokens: that is "no price", not "free".
    prices = model.get_prices(when)
    if prices.input_mtok is None and prices.output_mtok is None:
        return None
    usd = _plan(prices).usd(usage)
    return None if usd is None else float(usd)


@dataclass(frozen=True)
class _PricedUnit:
    price: Decimal | gp.TieredPrices
    per: int
    per_request: bool
    shares: tuple[int, ...]  # how many of this unit one token of each _FIELDS field is


# Our usage fields, in the order _PricedUnit.shares gives them.
_FIELDS = ("input", "output", "cache_read", "cache_write_5m", "cache_write_1h")


@dataclass(frozen=True)
class _Plan:
    """One genai-prices price set as plain arithmetic. genai-prices validates the set,
    resolves its units and splits the usage into units on every call, which costs more than
    reading the step; all of that depends on the price set alone, so it is done once here
    and a step costs a few Decimal products. The sums are the library's own, term by term
    and in its order (tests/test_costs.py checks every model of the table against it)."""

    units: tuple[_PricedUnit, ...]

    def usd(self, usage: Usage) -> Decimal | None:
        counts = tuple(getattr(usage, name) for name in _FIELDS)
        total_input = usage.input + usage.cache_read + usage.cache_write_5m + usage.cache_write_1h
        total = Decimal(0)
        for unit in self.units:
            count = 1 if unit.per_request else sum(share * count for share, count in zip(unit.shares, counts))
            if count < 0:
                return None  # corrupt counts (e.g. negative): unknown, not a crash or $0
            total += _unit_price(unit.price, total_input) * Decimal(count) / unit.per
        return total


def _unit_price(price: Decimal | gp.TieredPrices, total_input: int) -> Decimal:
    """A tiered price applies its highest tier whose start the request's whole input passes."""
    if isinstance(price, Decimal):
        return price
    return next((tier.price for tier in reversed(price.tiers) if total_input > tier.start), price.base)


# Keyed by identity: price sets are objects of the bundled table, a few dozen in use at most.
_PLANS: dict[int, tuple[gp.ModelPrice, _Plan]] = {}


def _plan(prices: gp.ModelPrice) -> _Plan:
    if (known := _PLANS.get(id(prices))) is not None and known[0] is prices:
        return known[1]
    # genai-prices' own unit resolution (pinned version): which units the set prices, and
    # how a token of each of our fields splits among them (the split is linear).
    from genai_prices import types as gp
    from genai_prices.units import _get_registry
    from genai_prices.validation import validate_priced_units

    registry = _get_registry()
    resolved = gp._collect_resolved_model_prices(prices, registry)
    validate_priced_units(tuple(unit for unit, _ in resolved), registry)
    columns = [gp._compute_registry_priced_counts(resolved, gp.Usage.from_raw(_genai_usage(Usage(**{name: 1}))))
               for name in _FIELDS]
    plan = _Plan(tuple(_PricedUnit(price, unit.per, unit.usage_key == "requests",
                                   tuple(int(column.get(unit.usage_key, 0)) for column in columns))
                       for unit, price in resolved))
    _PLANS[id(prices)] = (prices, plan)
    return plan
