"""Cost estimation: every expected figure is worked out by hand from per-MTok rates.

Rates used, as published in genai-prices 0.2.3's bundled data (USD per million tokens,
base tier; `genai_prices/data.py`):
  claude-sonnet-4-5 (anthropic): input 3, output 15, cache read 0.3,
      cache write 3.75 (5-minute), cache write 1h 6; over 200k total input:
      input 6, output 22.5, cache read 0.6, cache write 7.5, 1h 12.
  gpt-5.5 (openai): input 5, output 30, cache read 0.5; over 272k input: 10 / 45 / 1.
"""
from __future__ import annotations

import copy
import os
import pickle
import socket
import subprocess
import sys
from datetime import UTC, datetime, time, timedelta, timezone
from pathlib import Path

import genai_prices
import pytest

from replay_site import costs
from replay_site.costs import (
    PriceBook,
    PriceFileError,
    load_price_overrides,
    price_session,
    pricing_source,
    table,
)
from replay_site.model import Cost, Session, Step, Usage

WHEN = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


def _step(model: str | None, usage: Usage | None, cost: Cost | None = None) -> Step:
    return Step("assistant", timestamp=WHEN, model=model, usage=usage, cost=cost)


def _priced(*steps: Step, book: PriceBook | None = None) -> Session:
    session = Session("s", "test", steps=list(steps))
    session.number_steps()
    price_session(session, book)
    return session


def _usd(step: Step) -> float:
    assert step.cost is not None and step.cost.source == "estimate", step.cost
    assert step.cost.usd is not None
    return step.cost.usd


def test_genai_prices_counts_cache_reads_inside_input_tokens():
    # The library's own convention, checked directly: input_tokens=1000 with
    # cache_read_tokens=1000 on gpt-5.5 means "1000 input, all of it cache reads":
    #   uncached 1000 - 1000 = 0 x $5 + 1000 x $0.5 = 500 / 1e6 = $0.0005.
    # Were input_tokens uncached-only, it would be 1000x5 + 1000x0.5 = $0.0055.
    calc = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=1000, cache_read_tokens=1000), "gpt-5.5", genai_request_timestamp=WHEN
    )
    assert float(calc.total_price) == pytest.approx(0.0005, rel=1e-12)
    # And it refuses cache reads larger than input, which is what passing our
    # uncached-only Usage.input straight through would produce.
    with pytest.raises(ValueError):
        genai_prices.calc_price(
            genai_prices.Usage(input_tokens=10, cache_read_tokens=1000), "gpt-5.5", genai_request_timestamp=WHEN
        )
    # Our conversion: Usage.input=0 (uncached), cache_read=1000 -> the same $0.0005.
    session = _priced(_step("gpt-5.5", Usage(input=0, cache_read=1000)))
    assert _usd(session.steps[0]) == pytest.approx(0.0005, rel=1e-12)


def test_claude_cache_write_5m_and_1h_use_their_own_rates():
    five = Usage(input=1000, output=500, cache_read=20_000, cache_write_5m=10_000)
    hour = Usage(input=1000, output=500, cache_read=20_000, cache_write_1h=10_000)
    session = _priced(_step("claude-sonnet-4-5-20250929", five), _step("claude-sonnet-4-5-20250929", hour))
    # 5m: 1000x3 + 500x15 + 20000x0.3 + 10000x3.75 = 3000+7500+6000+37500 = 54000 -> $0.054
    assert _usd(session.steps[0]) == pytest.approx(0.054, rel=1e-12)
    # 1h: same but 10000x6 = 60000 for the writes: 3000+7500+6000+60000 = 76500 -> $0.0765
    assert _usd(session.steps[1]) == pytest.approx(0.0765, rel=1e-12)


def test_provider_prefix_and_dated_names_resolve_to_the_same_price():
    usage = Usage(input=1000, output=500, cache_read=20_000, cache_write_5m=10_000)
    names = ["anthropic/claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"]
    session = _priced(*(_step(name, usage) for name in names))
    # Each is the 5m case above: $0.054.
    assert [_usd(step) for step in session.steps] == pytest.approx([0.054] * 3, rel=1e-12)


def test_bedrock_ids_resolve_with_aws_as_the_provider():
    # Claude Code on Bedrock logs "converse/<region>.anthropic.<model>-v1:0"; genai-prices 0.2.3
    # prices regional haiku 4.5 at $1.10 in / $5.50 out per MTok (10% over Anthropic's own):
    # 16878*1.1 + 237*5.5 = 19869.3 -> $0.0198693, the same with or without the prefix.
    usage = Usage(input=16_878, output=237)
    names = ["converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0", "jp.anthropic.claude-haiku-4-5-20251001-v1:0"]
    session = _priced(*(_step(name, usage) for name in names))
    assert [_usd(step) for step in session.steps] == pytest.approx([0.0198693] * 2, rel=1e-9)


def test_tier_threshold_counts_cached_input():
    # Anthropic's >200k tier is decided by all input, cached included:
    # 1000 + 250000 = 251000 > 200000 -> tier rates: 1000x6 + 250000x0.6 = 6000+150000 = 156000 -> $0.156.
    # (Counting only the 1000 uncached tokens would give base rates: 3000+75000 -> $0.078.)
    session = _priced(_step("claude-sonnet-4-5", Usage(input=1000, cache_read=250_000)))
    assert _usd(session.steps[0]) == pytest.approx(0.156, rel=1e-12)


def test_openai_cached_input_and_reasoning_not_billed_twice():
    usage = Usage(input=2000, output=300, cache_read=8000, reasoning=100)
    session = _priced(_step("gpt-5.5", usage), _step("openai/gpt-5.5", usage))
    # 2000x5 + 300x30 + 8000x0.5 = 10000+9000+4000 = 23000 -> $0.023.
    # The 100 reasoning tokens are inside the 300 output; adding them would give $0.026.
    assert _usd(session.steps[0]) == pytest.approx(0.023, rel=1e-12)
    assert _usd(session.steps[1]) == pytest.approx(0.023, rel=1e-12)


def test_unpriced_model_is_unknown_never_zero():
    session = _priced(
        _step("gpt-5.5", Usage(input=2000, output=300, cache_read=8000)),  # $0.023 as above
        _step("local/mock-model", Usage(input=1000, output=1000)),
        _step("local/mock-model", Usage(input=5, output=5)),
        _step("<synthetic>", Usage(input=1)),
        _step(None, Usage(input=1)),  # no model anywhere: nothing to look up
    )
    assert [step.cost for step in session.steps[1:]] == [Cost.unknown()] * 4
    total = session.cost
    # Only the gpt-5.5 step is summed; the other four stay out of the dollars.
    assert total.usd == pytest.approx(0.023, rel=1e-12)
    assert (total.priced_steps, total.unpriced_steps) == (1, 4)
    assert total.is_lower_bound
    assert total.unpriced_models == ("<synthetic>", "local/mock-model")


def test_nothing_to_price_gives_no_cost():
    # No usage, or all-zero usage (Claude's "<synthetic>" notices): None, not unknown.
    session = _priced(
        Step("user", timestamp=WHEN),
        _step("claude-sonnet-4-5", None),
        _step("<synthetic>", Usage()),
    )
    assert [step.cost for step in session.steps] == [None, None, None]
    assert not session.cost.is_lower_bound


def test_log_cost_kept_and_stale_estimates_recomputed():
    log = Cost(0.4242, "log")
    usage = Usage(input=2000, output=300, cache_read=8000)
    session = _priced(
        _step("gpt-5.5", usage, log),
        _step("local/mock-model", None, Cost(1.0, "log")),  # a log cost needs no usage
        _step("gpt-5.5", usage, Cost(99.0, "estimate")),
    )
    assert session.steps[0].cost is log
    assert session.steps[1].cost == Cost(1.0, "log")
    assert _usd(session.steps[2]) == pytest.approx(0.023, rel=1e-12)  # as computed above
    # 0.4242 + 1.0 + 0.023 = 1.4472; an estimate is among them, so the total is an estimate.
    assert session.cost.usd == pytest.approx(1.4472, rel=1e-12)
    assert session.cost.source == "estimate"


def test_children_are_priced():
    child = Session("c", "test", steps=[_step("gpt-5.5", Usage(input=2000, output=300, cache_read=8000))])
    parent = Session("p", "test", steps=[_step("gpt-5.5", Usage(output=1000))], children=[child])
    child.parent_id = "p"
    price_session(parent)
    assert _usd(parent.steps[0]) == pytest.approx(0.03, rel=1e-12)  # 1000x30 = 30000 -> $0.03
    assert _usd(child.steps[0]) == pytest.approx(0.023, rel=1e-12)  # as above
    assert parent.cost_with_children.usd == pytest.approx(0.053, rel=1e-12)


def test_step_without_model_uses_the_sessions_only_model():
    session = Session("s", "test", declared_models=["gpt-5.5"], steps=[_step(None, Usage(output=1000))])
    price_session(session)
    assert _usd(session.steps[0]) == pytest.approx(0.03, rel=1e-12)  # 1000x30 -> $0.03
    # The step now names the model it was priced as, so per-model figures are not "unknown model".
    assert session.steps[0].model == "gpt-5.5"


def test_unpriced_step_without_model_lists_the_sessions_model():
    # rlm trajectories declare the model once (run_start); a lower-bound total must still name it.
    session = Session("s", "test", declared_models=["scripted-planner-v2"], steps=[_step(None, Usage(output=10))])
    price_session(session)
    assert session.cost.unpriced_models == ("scripted-planner-v2",)


PRICES_TOML = """
[models."local/mock-model"]
input_per_mtok = 0.1
output_per_mtok = 0.4
cache_read_per_mtok = 0.01
cache_write_5m_per_mtok = 0.125
cache_write_1h_per_mtok = 0.2

[models."cheap-model"]  # no cache rates: they fall back to input (and 1h to 5m)
input_per_mtok = 2
output_per_mtok = 8

[models."Claude-Sonnet-4-5"]  # overrides the table for every name that resolves to this id
input_per_mtok = 1
output_per_mtok = 1
cache_read_per_mtok = 1
cache_write_5m_per_mtok = 1
cache_write_1h_per_mtok = 1
"""


def _book(tmp_path: Path, text: str = PRICES_TOML) -> PriceBook:
    path = tmp_path / "prices.toml"
    path.write_text(text, encoding="utf-8")
    return load_price_overrides(path)


def test_overrides_from_toml(tmp_path: Path):
    book = _book(tmp_path)
    full = Usage(input=1000, output=2000, cache_read=10_000, cache_write_5m=4000, cache_write_1h=3000)
    session = _priced(
        _step("local/mock-model", full),
        _step("ollama/cheap-model", full),  # matched without its prefix
        _step("anthropic/claude-sonnet-4-5-20250929", full),  # matched by the resolved genai-prices id
        _step("gpt-5.5", Usage(output=1000)),  # not overridden: the table's $30/MTok
        book=book,
    )
    usd = [_usd(step) for step in session.steps]
    # mock: 1000x0.1 + 2000x0.4 + 10000x0.01 + 4000x0.125 + 3000x0.2 = 100+800+100+500+600 = 2100 -> $0.0021
    # cheap: 1000x2 + 2000x8 + (10000+4000+3000)x2 = 2000+16000+34000 = 52000 -> $0.052
    # claude: (1000+2000+10000+4000+3000)x1 = 20000 -> $0.02
    # gpt-5.5: 1000x30 -> $0.03
    assert usd == pytest.approx([0.0021, 0.052, 0.02, 0.03], rel=1e-12)
    assert pricing_source(book) == f"genai-prices {genai_prices.__version__} + overrides prices.toml"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[models."x"]\ninput_per_mtok = 1\n', "missing ['output_per_mtok']"),
        ('[models."x"]\ninput_per_mtok = 1\noutput_per_mtok = 1\ninptu_per_mtok = 1\n', "unknown key"),
        ('[models."x"]\ninput_per_mtok = -1\noutput_per_mtok = 1\n', ">= 0"),
        ('[models."x"]\ninput_per_mtok = true\noutput_per_mtok = 1\n', "must be a number"),
        ('[model."x"]\ninput_per_mtok = 1\noutput_per_mtok = 1\n', "unknown top-level"),
        ("[models\n", "cannot read"),
    ],
)
def test_bad_price_files_name_the_file(tmp_path: Path, text: str, message: str):
    with pytest.raises(PriceFileError, match="prices.toml") as info:
        _book(tmp_path, text)
    assert message in str(info.value)


def test_missing_price_file(tmp_path: Path):
    with pytest.raises(PriceFileError, match="cannot read"):
        load_price_overrides(tmp_path / "nope.toml")


def test_pricing_source_without_overrides():
    assert pricing_source() == "genai-prices 0.2.3"  # the version pinned in pyproject
    assert pricing_source(PriceBook()) == "genai-prices 0.2.3"


def _mixed_session() -> Session:
    models = ["claude-sonnet-4-5-20250929", "openai/gpt-5.5", "local/mock-model", "<synthetic>"]
    steps = []
    for i in range(40):
        # Every other step undated: those must not depend on when the build runs.
        steps.append(
            Step(
                "assistant",
                timestamp=WHEN if i % 2 else None,
                model=models[i % 4],
                usage=Usage(input=i * 10, output=i * 7, cache_read=i * 100, cache_write_1h=i),
            )
        )
    return Session("s", "test", steps=steps)


def test_deterministic_and_idempotent():
    first, second = _mixed_session(), _mixed_session()
    price_session(first)
    table.resolve.cache_clear()  # a cold cache must not change anything
    price_session(second)
    assert [s.cost for s in first.steps] == [s.cost for s in second.steps]
    again = copy.deepcopy(first)
    price_session(again)  # pricing twice (e.g. a parent and then its child) changes nothing
    assert [s.cost for s in again.steps] == [s.cost for s in first.steps]


def test_never_touches_the_network(monkeypatch: pytest.MonkeyPatch):
    def refuse(*args, **kwargs):
        raise AssertionError("costs.py tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    table.resolve.cache_clear()
    session = _mixed_session()
    price_session(session)
    assert session.cost.priced_steps > 0
    assert table.load_price_table().from_auto_update is False  # our own bundled snapshot, not UpdatePrices'


def test_ten_thousand_steps_look_each_model_up_once():
    # Not a timing test: it shows the per-step work does not include a fresh
    # model search (which scans every provider on a miss) for each step.
    models = ["claude-sonnet-4-5-20250929", "openai/gpt-5.5", "local/unpriced"]
    steps = [Step("assistant", model=models[i % 3], usage=Usage(input=100, output=50)) for i in range(10_000)]
    session = Session("big", "test", steps=steps)
    table.resolve.cache_clear()
    price_session(session)
    info = table.resolve.cache_info()
    assert (info.misses, info.hits) == (3, 9_997)
    assert session.cost.priced_steps == 6_667 and session.cost.unpriced_steps == 3_333


def test_step_arithmetic_equals_genai_prices_for_every_model_in_the_table():
    """costs.table.Plan replaces genai-prices' per-call unit resolution with sums worked out once
    per price set; it must give the library's own Decimal total, to the last digit, for every
    model and price period of the pinned table and usages on both sides of every tier
    (200,001 input tokens crosses the common 200k cliff; cached input counts toward it)."""
    usages = [Usage(input=1234, output=567), Usage(input=3, output=9, cache_read=150_000, cache_write_5m=60_000),
              Usage(input=200_001, output=1, cache_write_1h=7), Usage(output=42, reasoning=40),
              Usage(input=10, cache_read=1_000_000, cache_write_5m=5, cache_write_1h=3_000_000, output=2)]
    moments = [datetime(2024, 6, 1, 3, tzinfo=UTC), datetime(2026, 1, 15, 17, 30, tzinfo=UTC), costs._UNDATED]
    compared = 0
    for provider in table.load_price_table().providers:
        for model in provider.models:
            for moment in moments:
                prices = model.get_prices(moment)
                if prices.input_mtok is None and prices.output_mtok is None:
                    continue
                for usage in usages:
                    try:
                        expected = model.calc_price(table.genai_usage(usage), provider, genai_request_timestamp=moment).total_price
                    except ValueError:
                        expected = None
                    assert table.plan_or_none(prices).usd(usage) == expected, (provider.id, model.id, moment, usage)
                    compared += 1
    assert compared > 1000


def test_the_memo_s_plain_prices_pick_the_table_s_price_set_at_every_moment():
    """The price memo keeps each model as plain data (costs.table.Priced): its price periods and
    their constraints (start dates, daily off-peak windows) must pick the same price set as
    the table's own ModelInfo.get_prices at every moment tried: every half hour of a day, in
    UTC, naive (read as UTC) and at -07:00, and the day before and the day of every start
    date; and they survive the memo's pickle unchanged."""
    west = timezone(timedelta(hours=-7))
    day = [datetime(2026, 1, 15, tzinfo=UTC) + timedelta(minutes=30 * half) for half in range(48)]
    everyday = day + [moment.replace(tzinfo=None) for moment in day] + [moment.astimezone(west) for moment in day] + [costs._UNDATED]
    windows = compared = 0
    for provider in table.load_price_table().providers:
        for model in provider.models:
            priced = table.priced(model)
            assert pickle.loads(pickle.dumps(priced)) == priced
            constraints = [constraint for constraint, _ in priced.periods if constraint is not None]
            windows += sum(isinstance(constraint, table.TimeOfDay) for constraint in constraints)
            starts = [datetime.combine(constraint.start + timedelta(days=shift), time(0, 30), UTC)
                      for constraint in constraints if isinstance(constraint, table.StartDate) for shift in (-1, 0)]
            for moment in everyday + starts:
                assert priced.plan_at(moment) == table.plan_or_none(model.get_prices(moment)), (provider.id, model.id, moment)
                compared += 1
    assert windows > 0 and compared > 10_000  # off-peak windows are in the table, so they were tried


PRICE_ONCE = """
import sys
from datetime import UTC, datetime
from replay_site.costs import price_session
from replay_site.model import Session, Step, Usage
models = ("claude-sonnet-4-5-20250929", "openai/gpt-5.5", "local/unpriced")
steps = [Step("assistant", timestamp=datetime(2026, 1, 15, 12, tzinfo=UTC), model=model,
              usage=Usage(input=1000, output=100, cache_read=5000)) for model in models]
price_session(Session("s", "test", steps=steps))
print(repr([step.cost for step in steps]), "genai_prices" in sys.modules)
"""


def test_a_run_pricing_only_models_priced_before_does_not_load_the_table(tmp_path):
    """Hand-worked: 1,000 uncached input, 100 output and 5,000 cache-read tokens cost
    1000*3 + 100*15 + 5000*0.3 = 6,000 millionths of a dollar on claude-sonnet-4-5 and
    1000*5 + 100*30 + 5000*0.5 = 10,500 on gpt-5.5; local/unpriced is unknown. The first run
    looks them up in genai-prices' table, the second finds them in the memo without importing
    genai-prices, and a damaged memo only sends the run back to the table."""
    env = {**os.environ, "PYTHONPATH": str(Path(costs.__file__).parents[2]), "XDG_CACHE_HOME": str(tmp_path)}

    def run() -> tuple[str, str]:
        result = subprocess.run([sys.executable, "-c", PRICE_ONCE], check=False, env=env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        return tuple(result.stdout.strip().rsplit(" ", 1))

    expected = repr([Cost(0.006, "estimate"), Cost(0.0105, "estimate"), Cost.unknown()])
    assert run() == (expected, "True")
    assert run() == (expected, "False")
    memos = list((tmp_path / "replay-site").glob("prices-*.pickle"))
    assert memos
    for memo in memos:
        memo.write_bytes(b"not a pickle")
    assert run() == (expected, "True")
    assert pickle.loads(memos[0].read_bytes()).keys() == {"claude-sonnet-4-5-20250929", "openai/gpt-5.5", "local/unpriced"}
