"""Tokens and cost of the Glue, gptme and rlm-code corpus sessions, recomputed from the raw
lines (see tests/test_figures.py for the method), and the pricing source on every page."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from figures import Tally, assert_figures, lines, summary_of


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
    # With subagents the page's figures add up to Glue's own meta.json token_count.
    assert (parent["input_tokens_with_children"] + parent["output_tokens_with_children"]
            + parent["cache_read_tokens_with_children"] + parent["cache_write_tokens_with_children"]) == (
        whole.input + whole.output + whole.cache_read + whole.write_5m)
    assert parent["input_tokens_with_children"] == own.input + sub.input


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
            cost_cell = row.select_one("span.cost-unknown").find_parent("td")
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
