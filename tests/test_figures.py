"""Tokens and cost of real corpus sessions, recomputed from the raw lines by a route that
shares nothing with the readers or costs.py, and matched against a built site.

Each format gets a few lines of plain `json` parsing written for that format's producer
semantics (FORMATS.md), and the per-MTok rates below are literals, so a reader bug and a
pricing bug cannot cancel out. The traps the accounting must avoid each have a test: a
Claude response split over several lines, Codex's cumulative counter, subagents rolled up
once, a 1-hour cache write, an unpriced model.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conftest import CORPUS, DATA
from replay_site import catalog, site

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


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict]:
    """The whole corpus built once; (site folder, sessions.json)."""
    if not CORPUS.is_dir():
        pytest.skip(f"real corpus not found at {CORPUS}")
    out = tmp_path_factory.mktemp("corpus-site")
    site.build([CORPUS], out, site.BuildOptions())
    return out, json.loads((out / "sessions.json").read_text(encoding="utf-8"))


def summary_of(document: dict, source: str, parent: bool | None = None) -> dict:
    found = [s for s in document["sessions"] if s["source"] == source
             and (parent is None or (s["parent"] is None) == parent)]
    assert len(found) == 1, [s["id"] for s in found]
    return found[0]


# --- Claude Code ---------------------------------------------------------------------------

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
    page = BeautifulSoup((built[0] / parent["page"]).read_bytes(), "html.parser").get_text(" ", strip=True)
    assert "≈ $0.2996 with subagents" in page

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
    totals = BeautifulSoup((out / "index.html").read_bytes(), "html.parser").select_one("section.totals")
    figures = [div.select_one(".figure").get_text(strip=True) for div in totals.find_all("div")]
    assert figures[0] == str(len(sessions))
    # Some corpus steps are unpriced, so the site total is a lower bound: "≥ $X".
    assert f"≥ ${own_sum:,.2f}" in figures
    token_total = sum(s[k] for s in sessions for k in ("input_tokens", "output_tokens",
                                                       "cache_read_tokens", "cache_write_tokens"))
    assert f"{token_total:,}" in figures


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

def glue_tally(path: Path) -> tuple[Tally, dict[str, Tally], dict[str, tuple[int, int]]]:
    """The session's own responses, each subagent's, and each subagent's aggregate rows.

    Own: top-level `usage` rows except role "subagent" (that row, like `subagent_usage`, is a
    total of the subagent's calls already logged one by one as `subagent_event` inner usage).
    Glue normalises input_tokens to the uncached part; cache_creation_tokens has no TTL: 5m.
    """
    own, children, aggregates = Tally(), {}, {}

    def add(tally: Tally, row: dict, model: str | None) -> None:
        tally.add(model, row["input_tokens"], row["output_tokens"], row.get("cache_read_tokens", 0),
                  row.get("cache_creation_tokens", 0))

    spawned_model = {}
    for row in lines(path / "conversation.jsonl"):
        kind = row.get("type")
        if kind == "usage" and row.get("role") != "subagent":
            add(own, row, row["model_ref"])
        elif kind == "subagent_spawned":
            spawned_model[row["subagent_id"]] = row["model_ref"]
        elif kind == "subagent_event" and row["inner"].get("type") == "usage":
            add(children.setdefault(row["subagent_id"], Tally()), row["inner"], spawned_model[row["subagent_id"]])
        elif kind == "subagent_usage" or (kind == "usage" and row.get("role") == "subagent"):
            aggregates.setdefault(row["subagent_id"], []).append((row["input_tokens"], row["output_tokens"]))
    return own, children, aggregates


def test_glue_sessions(corpus, built):
    document = built[1]
    # 1789374063402…: claude-sonnet-5 only, 2 title + 6 main usage rows, with cache read/write.
    # meta.json's token_count (input+output+cache, "incl. subagents and title generation")
    # is the producer's own total: 77,767.
    folder = corpus / "glue/constructed/1789374063402-48211-1k2x9fq"
    own, children, _ = glue_tally(folder)
    assert not children
    assert own.input + own.output + own.cache_read + own.write_5m == json.loads((folder / "meta.json").read_text())["token_count"] == 77_767
    assert_figures(summary_of(document, "glue/constructed/1789374063402-48211-1k2x9fq"), own)

    # 1790946341220…: gpt-5.5 main + one subagent, then /model to ollama/gemma3:4b (unpriced).
    folder = corpus / "glue/constructed/1790946341220-77310-3q8w0zd"
    own, children, aggregates = glue_tally(folder)
    [(sub_id, sub)] = children.items()
    # The two aggregate rows agree with the inner rows: the subagent's usage is logged 3
    # times and must be counted once.
    assert aggregates[sub_id] == [(sub.input, sub.output)] * 2
    whole = own + sub
    assert whole.input + whole.output + whole.cache_read + whole.write_5m == json.loads(
        (folder / "meta.json").read_text())["token_count"]
    parent = summary_of(document, "glue/constructed/1790946341220-77310-3q8w0zd", parent=True)
    child = summary_of(document, "glue/constructed/1790946341220-77310-3q8w0zd", parent=False)
    assert_figures(parent, own)
    assert_figures(child, sub)
    assert own.unpriced == 1 and parent["unpriced_models"] == ["ollama/gemma3:4b"]
    assert parent["cost_with_children_usd"] == pytest.approx(own.usd + sub.usd, abs=2e-6)


# --- gptme -----------------------------------------------------------------------------------

def gptme_tally(path: Path) -> Tally:
    tally = Tally()
    for message in lines(path):
        metadata = message.get("metadata") or {}
        usage = metadata.get("usage") or {}
        if message.get("role") == "assistant" and usage:
            # No metadata.cost in these logs: local models have no price (FORMATS.md (a)).
            assert "cost" not in metadata
            tally.add(metadata.get("model"), usage.get("input_tokens", 0), usage.get("output_tokens", 0),
                      usage.get("cache_read_tokens", 0), usage.get("cache_creation_tokens", 0))
    return tally


@pytest.mark.parametrize("name", ["native-wordfreq", "changelog-append-resume", "csvstat-region-summary",
                                  "ipython-retry-latency"])
def test_gptme_unpriced_local_models(corpus, built, name):
    # native-wordfreq by hand: 7 responses of local/mock-coder,
    #   input 1809+1956+1564+1729+1822+1954+2046 = 12,880, cache read 2*1024 + 5*1536 = 9,728.
    tally = gptme_tally(corpus / "gptme" / name / "conversation.jsonl")
    summary = summary_of(built[1], f"gptme/{name}/conversation.jsonl")
    assert_figures(summary, tally)
    assert summary["cost_usd"] is None and summary["cost_source"] == "unknown"
    assert summary["cost_with_children_usd"] is None
    assert summary["unpriced_models"] == sorted({m for m in summary["models"] if m.startswith("local/")})
    assert all(f["cost_usd"] == 0 and f["unpriced_steps"] == f["steps"] for f in summary["by_model"].values())
    if name == "native-wordfreq":
        assert (tally.input, tally.cache_read, tally.responses) == (12_880, 9_728, 7)


def test_index_shows_unknown_and_a_lower_bound_listing_unpriced_models(built):
    out, document = built
    index = BeautifulSoup((out / "index.html").read_bytes(), "html.parser")
    for summary in document["sessions"]:
        if summary["source"] == "gptme/native-wordfreq/conversation.jsonl":
            row = index.find("a", href=summary["page"]).find_parent("tr")
            cost_cell = row.select_one("span.unknown").find_parent("td")
            assert cost_cell.get_text(strip=True) == "unknown" and cost_cell["data-value"] == "-1"
            assert "$0" not in row.get_text()
    note = index.select_one("p.note").get_text(" ", strip=True)
    for model in ("local/mock-coder", "local/mock-alpha", "local/mock-beta", "ollama/gemma3:4b",
                  "scripted-planner-v2"):
        assert model in note
    by_model = {row.find("td").get_text(strip=True): row.find_all("td")[-1].get_text(strip=True)
                for row in index.select("table.by-model tbody tr")}
    assert by_model["local/mock-coder"] == "unknown"  # never "$0"


# --- rlm-code --------------------------------------------------------------------------------

def test_rlm_trajectory_priced_and_unpriced(corpus, built):
    document = built[1]
    # docs example run_001: run_start model gpt-4o; one sub_llm call 500 in / 200 out:
    #   500*2.5 + 200*10 = 1250 + 2000 = 3250 -> $0.00325
    summary = summary_of(document, "rlm/docs-trajectory-example/run_001.jsonl")
    expected = Tally()
    expected.add("gpt-4o", 500, 200)
    assert_figures(summary, expected)
    assert summary["cost_usd"] == pytest.approx(0.00325)
    # The steps carry no model of their own; they were priced as the run's model and are
    # listed under it, not under "unknown model".
    assert list(summary["by_model"]) == ["gpt-4o"]

    # traj_longest_word: model scripted-planner-v2 (unpriced). tokens_in/tokens_out on any
    # event, grouped by parent_id (a child's events carry it): root 180 in, 14+42+25 = 81 out;
    # chunk-1 and chunk-2 each 60 in, 20+5 = 25 out.
    path = corpus / "rlm/generated/trajectories/traj_longest_word.jsonl"
    events = lines(path)
    model = events[0]["data"]["model"]
    groups: dict[str | None, Tally] = {}
    for event in events:
        if event["event_type"] != "run_end" and ("tokens_in" in event or "tokens_out" in event):
            groups.setdefault(event.get("parent_id"), Tally()).add(model, event.get("tokens_in", 0), event.get("tokens_out", 0))
    assert (groups[None].input, groups[None].output) == (180, 81)
    parent = summary_of(document, "rlm/generated/trajectories/traj_longest_word.jsonl", parent=True)
    assert (parent["input_tokens"], parent["output_tokens"], parent["cost_usd"], parent["cost_source"]) == (180, 81, None, "unknown")
    assert parent["unpriced_models"] == ["scripted-planner-v2"]
    for child in (s for s in document["sessions"] if s["parent"] == parent["id"]):
        expected = groups[child["id"].rsplit(":", 1)[1]]
        assert (child["input_tokens"], child["output_tokens"], child["cost_usd"]) == (expected.input, expected.output, None)


def test_rlm_runs_delegate_usage_is_not_counted_twice(corpus, built):
    # The parent's delegate step (2) reports usage 296 in / 132 out over 3 calls, which
    # includes the child run's 2 calls (82+107 = 189 in, 62+22 = 84 out); its role_usage.root
    # is the parent's own call: 107 / 48. So parent own = 86+107+133+165 = 491 in,
    # 66+48+66+40 = 220 out; child 189 / 84; together 680 / 304 = the parent's final usage.
    # No model is recorded in run files: unknown cost.
    runs = corpus / "rlm/generated/runs"
    parent_lines = lines(runs / "run_20261122_155857_978574.jsonl")
    child_lines = lines(runs / "run_20261122_155858_003148.jsonl")
    own = [(r["role_usage"]["root"]["prompt_tokens"] + r["role_usage"]["sub"]["prompt_tokens"],
            r["role_usage"]["root"]["completion_tokens"] + r["role_usage"]["sub"]["completion_tokens"])
           for r in parent_lines if r["type"] == "step"]
    child = [(r["usage"]["prompt_tokens"], r["usage"]["completion_tokens"]) for r in child_lines if r["type"] == "step"]
    own_in, own_out = map(sum, zip(*own))
    child_in, child_out = map(sum, zip(*child))
    final = parent_lines[-1]["usage"]
    assert (own_in + child_in, own_out + child_out) == (final["prompt_tokens"], final["completion_tokens"]) == (680, 304)
    document = built[1]
    parent = summary_of(document, "rlm/generated/runs/run_20261122_155857_978574.jsonl")
    kid = summary_of(document, "rlm/generated/runs/run_20261122_155858_003148.jsonl")
    assert (parent["input_tokens"], parent["output_tokens"]) == (own_in, own_out) == (491, 220)
    assert (kid["input_tokens"], kid["output_tokens"]) == (child_in, child_out) == (189, 84)
    assert kid["parent"] == parent["id"]
    assert parent["cost_usd"] is None and parent["unpriced_steps"] == 4


# --- provenance ------------------------------------------------------------------------------

def test_pricing_source_in_every_footer_and_in_sessions_json(built):
    out, document = built
    # The version the literal RATES above were copied from: a new pin must re-check them.
    assert document["pricing"] == "genai-prices 0.2.3"
    pages = [out / "index.html", *(out / s["page"] for s in document["sessions"])]
    for page in pages:
        footer = BeautifulSoup(page.read_bytes(), "html.parser").find("footer")
        assert footer is not None and "prices: genai-prices 0.2.3" in footer.get_text(" ", strip=True), page
