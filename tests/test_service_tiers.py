"""Service tiers priced from the log's own field, with genai-prices' price variants (pinned table).

tests/data/codex/v0148-fast: Codex 0.148, thread_settings_applied and turn_context say service_tier "fast"
(Codex's name for priority processing); one response of gpt-5, 10,000 in / 1,000 out, on 2026-10-20.
  gpt-5 priority (from 2026-10-12): $2.50 / MTok in, $20 / MTok out -> 25,000 + 20,000 = 45,000 µ$
  (the standard rate, $1.25 / $10, would be 22,500 µ$).
tests/data/claude/-home-dev-tiers: Claude Code 2.1.230, two responses of 1,000 in / 100 out each:
  claude-fable-5-2 with usage.speed "fast": $16 / $80 -> 16,000 + 8,000 = 24,000 µ$ (standard $8 / $40: 12,000);
  claude-opus-4-6 with usage.inference_geo "us" (data residency, 1.1x): ($5 * 1,000 + $25 * 100) * 1.1 = 8,250 µ$.
"""
from __future__ import annotations

import pytest

from replay_site.costs import price_session
from replay_site.discover import find_sources
from replay_site.pages.formatting import step_cost
from replay_site.readers.claude.reader import READER as CLAUDE
from replay_site.readers.codex.reader import READER as CODEX


def read(reader, root):
    [source] = find_sources(root, [reader], [])
    [session] = reader.read(source)
    price_session(session)
    return session


def test_a_fast_mode_codex_session_is_priced_at_the_priority_rate(data):
    session = read(CODEX, data / "codex/v0148-fast")
    [step] = [step for step in session.steps if step.usage]
    assert step.tier == {"service_tier": "priority"}
    assert step.cost.usd == pytest.approx(45000e-6) and step.cost.tier == "service tier priority"
    assert "at the service tier priority rate" in step_cost(step.cost).note
    assert {fact.label: fact.value for fact in session.facts}["Service tier"] == "fast (priced at the priority rate)"


def test_claude_fast_mode_and_us_data_residency_are_priced_at_their_rates(data):
    session = read(CLAUDE, data / "claude/-home-dev-tiers")
    fast, us = [step for step in session.steps if step.usage]
    assert fast.tier == {"speed": "fast"} and fast.cost.usd == pytest.approx(24000e-6)
    assert us.tier == {"inference_geo": "us"} and us.cost.usd == pytest.approx(8250e-6)
    assert session.cost.usd == pytest.approx(32250e-6)


def test_a_step_without_a_tier_keeps_the_standard_rate(data):
    session = read(CODEX, data / "codex/v0148")
    assert all(step.tier == {} and (step.cost is None or step.cost.tier == "") for step in session.steps)
