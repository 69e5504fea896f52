"""Deterministic synthetic SessionSummary rows for measuring the index at org scale (tests and
tests/benchmark.py): a year of sessions over 300 projects and four agents, long titles, a few
models each. Same count, same rows."""
from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from replay_site.figures.summary import OUTCOMES, ModelFigures, SessionSummary

WORDS = ["fix", "the", "failing", "parser", "test", "then", "refactor", "the", "cache", "module", "and", "update", "the", "docs", "for", "the", "new", "release", "branch", "config", "error", "retry", "token", "model", "output", "import", "function", "class"]
AGENTS = (("claude", "Claude Code"), ("codex", "Codex CLI"), ("gptme", "gptme"), ("glue", "Glue"))
MODELS = ("claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "gpt-5-codex", "claude-opus-4-1-20250805")


def summaries(count: int, seed: int = 7) -> list[SessionSummary]:
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    rows = []
    for number in range(count):
        fmt, agent = AGENTS[number % len(AGENTS)]
        slug = f"{rng.getrandbits(64):016x}-{number:08d}-{rng.getrandbits(32):08x}"
        began = start + timedelta(seconds=rng.randrange(365 * 86400))
        duration = rng.randrange(30, 7200)
        models = sorted(rng.sample(MODELS, rng.randint(1, 2)))
        steps = rng.randint(2, 400)
        cost = round(rng.uniform(0.01, 25), 6)
        rows.append(SessionSummary(
            id=slug, format=fmt, agent=agent,
            title=" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 30))).capitalize(),
            page=f"sessions/{slug}.html", source=f"{fmt}/engineer{number % 500}/{slug}.jsonl",
            project=f"/home/engineer{number % 500}/project-{number % 300}", started_at=began.isoformat(),
            ended_at=(began + timedelta(seconds=duration)).isoformat(), local_time=False, duration_s=float(duration),
            models=models, steps=steps, tool_calls=steps // 2, failed_tool_calls=rng.randint(0, 5), errors=rng.randint(0, 8),
            input_tokens=steps * 900, output_tokens=steps * 120, cache_read_tokens=steps * 8000, cache_write_tokens=steps * 300,
            reasoning_tokens=0, cost_usd=cost, cost_source="estimate", cost_is_lower_bound=False, priced_steps=steps,
            estimated_steps=steps, unpriced_steps=0, unpriced_models=[], input_tokens_with_children=steps * 900,
            output_tokens_with_children=steps * 120, cache_read_tokens_with_children=steps * 8000,
            cache_write_tokens_with_children=steps * 300, cost_with_children_usd=cost, cost_with_children_is_lower_bound=False,
            warnings=0, parent=None, relation=None, children=[], family=f"sessions/{slug}.html",
            outcome=OUTCOMES[rng.randrange(len(OUTCOMES))],
            by_model={model: ModelFigures(steps=steps // len(models), cost_usd=round(cost / len(models), 6)) for model in models},
        ))
    return rows
