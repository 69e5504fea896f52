"""genai-prices' table as plain data, and the price memo that keeps it between runs.

The table (genai-prices' bundled data, never the network) is loaded only to look up a model
string not seen before. What the lookup finds is kept as plain data (`Priced`: the model's
id and its price periods, each with its constraint and a `Plan` of plain arithmetic) in the
memo, a file in replay-site's cache folder, so that a build pricing only models priced before
(a rebuild after one appended turn) never imports genai-prices (~0.3 s of a core, more than
the rest of such a rebuild's reading). The memo's name holds genai-prices' version and this
module's code: either changing gives a new memo.
"""
from __future__ import annotations

import hashlib
import operator
import pickle
from copy import copy
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from replay_site.caches import cache_folder, replace_file_at_once
from replay_site import installed
from replay_site.model import Usage

if TYPE_CHECKING:
    from genai_prices import types as gp
    from genai_prices.data_snapshot import DataSnapshot


@lru_cache(maxsize=1)
def load_price_table() -> DataSnapshot:
    """Our own snapshot of the bundled table rather than `genai_prices.calc_price`: that goes
    through a process-wide snapshot which `UpdatePrices` may swap for one fetched over the
    network. Pricing must be offline and reproducible. Loaded on first use: importing the
    table costs more than a whole rebuild with nothing to price."""
    from genai_prices import data
    from genai_prices.data_snapshot import DataSnapshot

    return DataSnapshot(providers=data.providers, from_auto_update=False)


# Readers hand us the same few model strings thousands of times; a failed lookup
# in genai-prices scans every provider and is not cached there, so cache both
# hits and misses here. Bounded: model strings come from untrusted logs.
@lru_cache(maxsize=1024)
def resolve(model: str) -> Priced | None:
    """The price table's entry for a model string, as plain data: from the memo of earlier
    runs when it has the string, else looked up in the table and added to the memo."""
    memo = _memo()
    if model not in memo:
        memo.update(_read_memo())  # what other processes (a build's workers) looked up meanwhile
    if model in memo:
        return memo[model]
    found = _find_in_table(model)
    answer = None if found is None else priced(found)
    _remember({model: answer})
    return answer


def _find_in_table(model: str) -> gp.ModelInfo | None:
    """genai-prices' model for a model string, honouring a "provider/" prefix."""
    snapshot = load_price_table()
    from genai_prices.data_snapshot import find_provider_by_id

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
            return snapshot.find_provider_model(model_ref, None, provider_id, None)[1]
        except LookupError:
            continue
    return None


_MEMO_SIZE = 1024


@lru_cache(maxsize=1)
def table_version() -> str:
    """genai-prices' version (installed.py: remembered while the path's folders are unchanged)."""
    return installed.version("genai-prices") or ""


@lru_cache(maxsize=1)
def _memo_path() -> Path:
    key = hashlib.blake2b(table_version().encode() + Path(__file__).read_bytes(), digest_size=10).hexdigest()
    return cache_folder() / f"prices-{key}.pickle"


def _read_memo() -> dict[str, Priced | None]:
    try:
        with open(_memo_path(), "rb") as stream:
            memo = pickle.load(stream)
    except (OSError, EOFError, ValueError, TypeError, AttributeError, ImportError, pickle.UnpicklingError):
        return {}  # none yet, or damaged: the table answers, and the memo is written anew
    if not isinstance(memo, dict):
        return {}
    return {model: entry for model, entry in memo.items() if isinstance(model, str) and (entry is None or isinstance(entry, Priced))}


@lru_cache(maxsize=1)
def _memo() -> dict[str, Priced | None]:
    return _read_memo()


def _remember(found: dict[str, Priced | None]) -> None:
    """Add answers to the memo file, merged with what other processes (a build's workers)
    wrote meanwhile; a memo that cannot be written only costs the next run the table."""
    memo = _memo()
    if len(memo) >= _MEMO_SIZE:
        return
    memo.update({**_read_memo(), **found})
    replace_file_at_once(_memo_path(), [pickle.dumps(memo, protocol=pickle.HIGHEST_PROTOCOL)])


@dataclass(frozen=True)
class StartDate:
    """genai-prices' StartDateConstraint: on and after a UTC date."""

    start: date

    def active(self, when: datetime) -> bool:
        return (when.astimezone(UTC) if when.tzinfo is not None else when).date() >= self.start


@dataclass(frozen=True)
class TimeOfDay:
    """genai-prices' TimeOfDateConstraint: a daily window of UTC times (off-peak prices)."""

    start: time  # UTC-aware
    end: time

    def active(self, when: datetime) -> bool:
        moment = (when if when.tzinfo is not None else when.replace(tzinfo=UTC)).astimezone(UTC).timetz()
        if self.end < self.start:
            return moment >= self.start or moment < self.end
        return self.start <= moment < self.end


def _constraint(constraint: Any) -> Any:
    """A genai-prices constraint as plain data (one of another kind is kept as it is: it has
    the same `active`, and only costs the memo's reader an import of genai-prices)."""
    from genai_prices import types as gp

    if isinstance(constraint, gp.StartDateConstraint):
        return StartDate(constraint.start_date)
    if isinstance(constraint, gp.TimeOfDateConstraint):
        return TimeOfDay(gp._utc_timetz(constraint.start_time), gp._utc_timetz(constraint.end_time))
    return constraint


def priced(model: gp.ModelInfo) -> Priced:
    from genai_prices import types as gp

    periods = [(None, model.prices)] if isinstance(model.prices, gp.ModelPrice) else \
        [(conditional.constraint, conditional.prices) for conditional in model.prices]
    variants = tuple(
        (tuple(sorted(variant.when.items())), _constraint(variant.constraint),
         tuple(plan_or_none(_overridden(prices, variant.prices)) for _, prices in periods))
        for variant in model.price_variants or ())
    return Priced(model.id, tuple((_constraint(constraint), plan_or_none(prices)) for constraint, prices in periods), variants)


def _overridden(standard: gp.ModelPrice, variant: gp.ModelPrice) -> gp.ModelPrice:
    """A period's prices with a variant's own prices in place of them (genai-prices' get_prices)."""
    merged = copy(standard)
    merged.__dict__.update({key: price for key, price in variant.__dict__.items() if price is not None})
    return merged


@dataclass(frozen=True)
class Priced:
    """A model of the price table as plain data: its id and its price periods in the table's
    order, each with its constraint (None: always) and its plan (None: no token prices,
    e.g. an image model, which is "no price", not "free")."""

    model_id: str
    periods: tuple[tuple[Any, Plan | None], ...]
    # Price variants (service tiers, fast mode, batch) in the table's order: the request keys
    # they apply to, their constraint, and their plan for each of `periods`.
    variants: tuple[tuple[tuple[tuple[str, str], ...], Any, tuple[Plan | None, ...]], ...] = ()

    def plan_at(self, when: datetime, context: dict[str, str] | None = None) -> Plan | None:
        """genai-prices' ModelInfo.get_prices: the last period active at `when`, else the first;
        with a request `context` (Step.tier), the first variant it matches that is active then
        (genai-prices merges every matching variant key by key; a log names one tier)."""
        index = next((index for index in reversed(range(len(self.periods)))
                      if self.periods[index][0] is None or self.periods[index][0].active(when)), 0)
        for keys, constraint, plans in self.variants if context else ():
            if (constraint is None or constraint.active(when)) and all(context.get(key) == value for key, value in keys):
                return plans[index]
        return self.periods[index][1]


def genai_usage(usage: Usage) -> gp.Usage:
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


def plan_or_none(prices: gp.ModelPrice) -> Plan | None:
    # A table entry without token rates (image or per-request models) would
    # compute $0 for tokens: that is "no price", not "free".
    if prices.input_mtok is None and prices.output_mtok is None:
        return None
    return _plan(prices)


@dataclass(frozen=True)
class _Tiered:
    """genai-prices' TieredPrices as plain data: (start, price) tiers in ascending order."""

    base: Decimal
    tiers: tuple[tuple[int, Decimal], ...]


@dataclass(frozen=True)
class _PricedUnit:
    price: Decimal | _Tiered
    per: int
    per_request: bool
    # how many of this unit one token of a _FIELDS field is, as (field's index, share) for
    # the fields that count (most units count one field, and a step's usage has five)
    shares: tuple[tuple[int, int], ...]


# Our usage fields, in the order _PricedUnit.shares numbers them.
_FIELDS = ("input", "output", "cache_read", "cache_write_5m", "cache_write_1h")
_COUNTS = operator.attrgetter(*_FIELDS)


@dataclass(frozen=True)
class Plan:
    """One genai-prices price set as plain arithmetic. genai-prices validates the set,
    resolves its units and splits the usage into units on every call, which costs more than
    reading the step; all of that depends on the price set alone, so it is done once here
    and a step costs a few Decimal products. The sums are the library's own, term by term
    and in its order (tests/test_costs.py checks every model of the table against it)."""

    units: tuple[_PricedUnit, ...]

    def usd(self, usage: Usage) -> Decimal | None:
        counts = _COUNTS(usage)
        total_input = usage.input + usage.cache_read + usage.cache_write_5m + usage.cache_write_1h
        total = Decimal(0)
        for unit in self.units:  # loops, not generators: this runs for every step priced
            count = 1
            if not unit.per_request:
                count = 0
                for field, share in unit.shares:
                    count += share * counts[field]
            if count < 0:
                return None  # corrupt counts (e.g. negative): unknown, not a crash or $0
            price = unit.price
            total += (price if type(price) is Decimal else _tier_price(price, total_input)) * Decimal(count) / unit.per
        return total


def _tier_price(price: _Tiered, total_input: int) -> Decimal:
    """A tiered price applies its highest tier whose start the request's whole input passes."""
    for start, tier_price in reversed(price.tiers):
        if total_input > start:
            return tier_price
    return price.base


def _plain(price: Decimal | gp.TieredPrices) -> Decimal | _Tiered:
    if isinstance(price, Decimal):
        return price
    return _Tiered(price.base, tuple((tier.start, tier.price) for tier in price.tiers))


# Keyed by identity: price sets are objects of the bundled table, a few dozen in use at most.
_PLANS: dict[int, tuple[gp.ModelPrice, Plan]] = {}


def _plan(prices: gp.ModelPrice) -> Plan:
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
    columns = [gp._compute_registry_priced_counts(resolved, gp.Usage.from_raw(genai_usage(Usage(**{name: 1}))))
               for name in _FIELDS]
    plan = Plan(tuple(_PricedUnit(_plain(price), unit.per, unit.usage_key == "requests",
                                    tuple((field, share) for field, column in enumerate(columns)
                                          if (share := int(column.get(unit.usage_key, 0)))))
                        for unit, price in resolved))
    _PLANS[id(prices)] = (prices, plan)
    return plan
