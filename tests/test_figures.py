"""Tokens and cost of real corpus sessions, recomputed from the raw lines by a route that
shares nothing with the readers or costs.py, and matched against a built site.

Each format gets a few lines of plain `json` parsing written for that format's producer
semantics (FORMATS.md), and the per-MTok rates below are literals, so a reader bug and a
pricing bug cannot cancel out. The traps the accounting must avoid each have a test: a
Claude response split over several lines, Codex's cumulative counter, subagents rolled up
once, a 1-hour cache write, an unpriced model.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from figures import Tally, assert_figures, lines, summary_of

from replay_site import load as catalog


def claude_responses(path: Path) -> dict[str, tuple[str, dict]]:
    """message.id -> (model, usage) of the LAST line of each API response.

    Claude Code writes one line per content block and repeats the response's usage on each
    (FORMATS.md (e)); only output_tokens grows while streaming, so the last line is the
    response's final count and every other field must agree across the lines.
    """
    responses: dict[str, tuple[str, dict]] = {}
    for line in lines(path):
        message = line.get("message")
        if line.get("type") != "assistant" or not isinstance(message, dict) or not message.get("usage"):
            continue
        if message.get("model") == "<synthetic>":
            continue  # Claude Code's own notices: no API call, all-zero usage
        usage = message["usage"]
        if message["id"] in responses:
            before = responses[message["id"]][1]
            for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
                assert before.get(key) == usage.get(key), (message["id"], key)
            assert usage["output_tokens"] >= before["output_tokens"]
        responses[message["id"]] = (message["model"], usage)
    return responses


def claude_tally(path: Path) -> Tally:
    tally = Tally()
    for model, usage in claude_responses(path).values():
        # Anthropic's input_tokens is already the uncached part. cache_creation splits the
        # writes by TTL when present; without it every write is the default 5-minute one.
        split = usage.get("cache_creation") or {}
        write_1h = split.get("ephemeral_1h_input_tokens", 0)
        write_5m = split.get("ephemeral_5m_input_tokens", usage.get("cache_creation_input_tokens", 0) - write_1h)
        tally.add(model, usage["input_tokens"], usage["output_tokens"],
                  usage.get("cache_read_input_tokens", 0), write_5m, write_1h)
    return tally


def test_claude_split_message_is_counted_once(corpus, built):
    # session-196820da: 133 assistant lines, every multi-block response split over several
    # lines sharing message.id, each repeating the usage. Counted once per message.id.
    path = corpus / "claude/codemie/session-196820da.jsonl"
    tally = claude_tally(path)
    assert_figures(summary_of(built[1], "claude/codemie/session-196820da.jsonl"), tally)

    # The naive route (usage of every line summed) bills the split responses again:
    # cache writes alone come out well above the real figure.
    naive_write = sum(line["message"]["usage"].get("cache_creation_input_tokens", 0)
                      for line in lines(path)
                      if line.get("type") == "assistant" and isinstance(line.get("message"), dict)
                      and line["message"].get("usage"))
    assert naive_write > tally.write_5m + tally.write_1h
    assert len(claude_responses(path)) < 133


def test_claude_split_message_by_hand(corpus, built):
    # -tmp-private/4c2ddfdc…: lines 3-6 are ONE response msg_bdrk_013SY… (text + 3 tool_use),
    # usage repeated with output_tokens 4, 4, 4, 395 and cache_creation 35066 on each line.
    # Responses (input / output / cache read / cache write 5m), one per message.id:
    #   013SY 3/395/0/35066   0123P 7/82/35089/570   01UZF 3/87/35745/9   016b4 6/153/35754/238
    #   01XgV 5/1/35992/396   015MEi 3/76/35659/761   01RHT 6/12/36388/132
    # input 33, output 806, cache read 214,627, cache write 37,172.
    # Cost at sonnet-4.5 (no request over 200k input):
    #   33*3 + 806*15 + 214627*0.3 + 37172*3.75 = 99 + 12090 + 64388.1 + 139395 = 215972.1 -> $0.2159721
    # The naive per-line sum would say output 4+4+4+395+… = 818 and cache write 3*35066 more.
    summary = summary_of(built[1], "claude/codemie/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl")
    assert (summary["input_tokens"], summary["output_tokens"], summary["cache_read_tokens"],
            summary["cache_write_tokens"]) == (33, 806, 214_627, 37_172)
    assert summary["cost_usd"] == pytest.approx(0.2159721, abs=1e-6)
    assert_figures(summary, claude_tally(corpus / "claude/codemie/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"))


def test_claude_subagents_roll_up_once(corpus, built):
    document = built[1]
    # Old layout: agent-*.jsonl next to the parent. agent-36541525 is one sonnet-4.5 response
    # (3 in, 3 out, 16,976 cache write 5m): 9 + 45 + 63660 = 63714 -> $0.063714.
    # agent-50243ee8 is one response of "converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0"
    # (16,878 in, 237 out): a Bedrock regional id (behind the Converse API prefix), priced
    # in genai-prices 0.2.3 as aws regional haiku 4.5 at $1.10 in / $5.50 out per MTok:
    # 16878*1.1 + 237*5.5 = 18565.8 + 1303.5 = 19869.3 -> $0.0198693.
    folder = corpus / "claude/codemie/-tmp-private"
    parent = summary_of(document, "claude/codemie/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl")
    done = summary_of(document, "claude/codemie/-tmp-private/agent-36541525.jsonl")
    bedrock = summary_of(document, "claude/codemie/-tmp-private/agent-50243ee8.jsonl")
    own, child_a, child_b = (claude_tally(folder / name) for name in (
        "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl", "agent-36541525.jsonl", "agent-50243ee8.jsonl"))
    assert_figures(done, child_a)
    assert child_a.usd == pytest.approx(0.063714)
    assert (bedrock["input_tokens"], bedrock["output_tokens"]) == (16_878, 237)
    assert (bedrock["cost_usd"], bedrock["unpriced_models"]) == (pytest.approx(0.0198693, abs=1e-6), [])
    assert {done["parent"], bedrock["parent"]} == {parent["id"]}
    # Own + each child exactly once: 0.2159721 + 0.063714 + 0.0198693 = 0.2995554.
    assert parent["cost_with_children_usd"] == pytest.approx(0.2995554, abs=2e-6)
    # Tokens with subagents, each once: input 33 + 3 + 16,878 = 16,914; output 806 + 3 + 237
    # = 1,046; cache read 214,627 (the children read none); cache write 37,172 + 16,976 = 54,148.
    assert (parent["input_tokens_with_children"], parent["output_tokens_with_children"],
            parent["cache_read_tokens_with_children"], parent["cache_write_tokens_with_children"]) == (
        16_914, 1_046, 214_627, 54_148)
    assert parent["input_tokens"] == 33  # the parent's own figure stays its own
    page = BeautifulSoup((built[0] / parent["page"]).read_bytes(), "html.parser").get_text(" ", strip=True)
    assert "Cost with subagents ≈ $0.2996" in page

    # New layout: <session>/subagents/agent-a485154.jsonl.
    parent = summary_of(document, "claude/codemie/incremental-subagents/turn-1.jsonl")
    child = summary_of(document, "claude/codemie/incremental-subagents/turn-1/subagents/agent-a485154.jsonl")
    own = claude_tally(corpus / "claude/codemie/incremental-subagents/turn-1.jsonl")
    sub = claude_tally(corpus / "claude/codemie/incremental-subagents/turn-1/subagents/agent-a485154.jsonl")
    assert_figures(parent, own)
    assert_figures(child, sub)
    assert child["parent"] == parent["id"]
    assert parent["cost_with_children_usd"] == pytest.approx(own.usd + sub.usd, abs=2e-6)


def test_site_totals_count_each_session_once(built):
    out, document = built
    sessions = document["sessions"]
    # Every session is one entry; a parent's figures are its OWN steps, so summing the
    # entries counts each subagent once (adding cost_with_children would count it twice).
    assert len({(s["source"], s["id"]) for s in sessions}) == len(sessions)
    own_sum = sum(s["cost_usd"] or 0 for s in sessions)
    double = sum((s["cost_with_children_usd"] or 0) if not s["parent"] else (s["cost_usd"] or 0) for s in sessions)
    assert double > own_sum
    index = BeautifulSoup((out / "index.html").read_bytes(), "html.parser")
    totals = index.select_one("section.totals")
    figures = [div.select_one(".figure").get_text(strip=True) for div in totals.find_all("div")]
    assert figures[0] == str(len(sessions))
    # Some corpus steps are unpriced, so the site total is a lower bound: "≥ $X".
    assert f"≥ ${own_sum:,.2f}" in figures
    token_total = sum(s[k] for s in sessions for k in ("input_tokens", "output_tokens",
                                                       "cache_read_tokens", "cache_write_tokens"))
    # the tokens line under the session table (the cards above it stay few, to keep it in view)
    assert f"Tokens: {token_total:,} (" in index.get_text(" ", strip=True)


def test_claude_one_hour_cache_write_is_priced_at_the_1h_rate(data):
    # The corpus has no non-zero ephemeral_1h_input_tokens (`grep -l ephemeral_1h_input_tokens`
    # finds the key in 5 files, always 0), so this uses the hand-written example
    # tests/data/claude/-home-dev-calc-demo/5b1e7c2a….jsonl. Its first response
    # msg_01Calc…0001 is split over lines 6-8 (output 4, 4, 180) with input 3 and
    # cache_creation {ephemeral_5m: 0, ephemeral_1h: 4000}:
    #   3*3 + 180*15 + 4000*6 (1h rate) = 9 + 2700 + 24000 = 26709 -> $0.026709
    # At the 5-minute rate it would be 9 + 2700 + 15000 -> $0.017709.
    path = data / "claude/-home-dev-calc-demo/5b1e7c2a-3f4d-4e6a-9b8c-0d1e2f3a4b5c.jsonl"
    session = next(s for s in catalog.iter_sessions([path]) if not s.parent_id)
    step = next(s for s in session.steps if s.usage and s.usage.cache_write_1h)
    assert (step.usage.input, step.usage.output, step.usage.cache_write_5m, step.usage.cache_write_1h) == (3, 180, 0, 4000)
    assert step.cost.source == "estimate"
    assert step.cost.usd == pytest.approx(0.026709)
    tally = claude_tally(path)
    assert (session.usage.input, session.usage.output, session.usage.cache_read,
            session.usage.cache_write_5m, session.usage.cache_write_1h) == (
        tally.input, tally.output, tally.cache_read, tally.write_5m, tally.write_1h)
    assert tally.write_1h == 4000
    assert session.cost.usd == pytest.approx(tally.usd)


# --- Codex CLI -----------------------------------------------------------------------------

def codex_tally(path: Path) -> tuple[Tally, dict[str, Tally], int]:
    """Per-response usage from token_count events, and the naive sum of the cumulative totals.

    `total_token_usage` is cumulative for the process (FORMATS.md (c)): consecutive events
    either repeat it (the same response reported again), continue it (previous total +
    this response's `last_token_usage`), or restart it after `codex exec resume` (total ==
    last). Anything else means we misunderstand the counter, so it fails loudly.
    OpenAI's input_tokens includes the cached part; uncached = input - cached.
    """
    tally, by_model, naive, model, previous = Tally(), {}, 0, None, None
    fields = ("input_tokens", "cached_input_tokens", "output_tokens")
    for line in lines(path):
        payload = line.get("payload") or {}
        if line.get("type") == "turn_context":
            model = payload.get("model")
        if payload.get("type") != "token_count" or not payload.get("info"):
            continue
        total, last = payload["info"]["total_token_usage"], payload["info"]["last_token_usage"]
        naive += total["input_tokens"]
        if previous == total:
            continue
        continues = previous is not None and all(total[f] == previous[f] + last[f] for f in fields)
        restarts = all(total[f] == last[f] for f in fields)
        assert continues or restarts, (previous, total, last)
        previous = total
        cached = last["cached_input_tokens"]
        args = (model, last["input_tokens"] - cached, last["output_tokens"], cached)
        tally.add(*args)
        by_model.setdefault(model, Tally()).add(*args)
    return tally, by_model, naive


def test_codex_cumulative_counter_is_never_summed(corpus, built):
    # Real Codex 0.125.0 capture, gpt-5.5, 66 token_count events, each continuing the
    # cumulative total. The last total is input 6,055,836 (4,929,536 cached), output 9,118,
    # and equals the sum of the 66 last_token_usage — the session's real usage.
    name = "codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
    tally, _, naive = codex_tally(corpus / name)
    assert (tally.input + tally.cache_read, tally.cache_read, tally.output, tally.responses) == (
        6_055_836, 4_929_536, 9_118, 66)
    summary = summary_of(built[1], name)
    assert_figures(summary, tally)
    assert summary["steps"] >= 66 and summary["priced_steps"] == 66
    # Summing the cumulative totals instead would claim many times the real input.
    assert naive > 10 * (tally.input + tally.cache_read)


@pytest.mark.parametrize("name", [
    # 0.47.0: exec then `exec resume`: 6 repeated events skipped, totals restart after resume.
    "codex/generated-0.47.0/sessions/2026/11/22/rollout-2026-11-22T15-57-17-01a203f9-e260-7c12-8a26-5ff02c66842f.jsonl",
    # 0.169.0: token_usage_record AND token_count for the same 7 responses (counted once);
    # model switch gpt-5.5 -> gpt-5.4 on resume.
    "codex/generated-0.169.0/sessions/2026/11/22/rollout-2026-11-22T15-57-21-01a203f9-ef3a-7a82-926c-a0d7af48527a.jsonl",
    # turn-2: the second response's total (1100) equals its last: a restarted counter, so
    # the session used 1024 + 1100 input tokens, not the final total's 1100.
    "codex/codemie-session-fixture/turn-2.jsonl",
])
def test_codex_sessions(corpus, built, name):
    tally, by_model, _ = codex_tally(corpus / name)
    summary = summary_of(built[1], name)
    assert_figures(summary, tally)
    for model, expected in by_model.items():
        figures = summary["by_model"][model]
        assert (figures["input_tokens"], figures["output_tokens"], figures["cache_read_tokens"],
                figures["steps"]) == (expected.input, expected.output, expected.cache_read, expected.responses)
        assert figures["cost_usd"] == pytest.approx(expected.usd, abs=2e-6)


def test_codex_by_hand(built):
    # turn-2.jsonl, o4-mini, two responses (restart between them):
    #   1: input 1024 (512 cached) out 12 -> 512*1.1 + 512*0.275 + 12*4.4 = 563.2 + 140.8 + 52.8 = 756.8
    #   2: input 1100 (512 cached) out 20 -> 588*1.1 + 512*0.275 + 20*4.4 = 646.8 + 140.8 + 88 = 875.6
    # uncached 512 + 588 = 1100, cache read 1024, output 32, cost 1632.4 / 1e6 = $0.0016324
    summary = summary_of(built[1], "codex/codemie-session-fixture/turn-2.jsonl")
    assert (summary["input_tokens"], summary["cache_read_tokens"], summary["output_tokens"]) == (1100, 1024, 32)
    assert summary["cost_usd"] == pytest.approx(0.0016324, abs=1e-6)


# --- Glue ------------------------------------------------------------------------------------
