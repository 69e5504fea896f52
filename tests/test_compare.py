"""compare: the comparison as data (real corpus pairs, figures worked out by hand from the raw
lines), the standalone page (one self-contained file) and `build --compare` pages (links resolve)."""
from __future__ import annotations

import base64
import hashlib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sitetools import external_references, run_sitecheck, soup, step_numbers
from typer.testing import CliRunner

from replay_site.cli.app import app
from replay_site.figures.compare import compare_sessions
from replay_site.load import load_session
from replay_site.model import Cost, Session, Step, ToolCall

runner = CliRunner()
PARENT = "rlm/generated/runs/run_20261122_155857_978574.jsonl"
CHILD = "rlm/generated/runs/run_20261122_155858_003148.jsonl"
WARMUP_A = "claude/codemie/-tmp-private/agent-36541525.jsonl"
WARMUP_B = "claude/codemie/-tmp-private/agent-50243ee8.jsonl"


def load(corpus: Path, rel: str) -> Session:
    return load_session(str(corpus / rel), [])


def figure(comparison, label):
    return next(f for f in comparison.figures if f.label == label)


def test_rlm_parent_and_delegated_child_diverge_at_step_1_on_code(corpus):
    # By hand from the two run files: line 1 of each is {"type":"step","step":1} with
    # action "run_python"; the parent's code is `counts = Counter(line.split()[1] ...)` (per
    # service), the child's `msgs = Counter(line.split(' ERROR ', 1)[1] ...)` (per message).
    # Same action, different code: they diverge at once, A step 1 vs B step 1.
    c = compare_sessions(load(corpus, PARENT), load(corpus, CHILD))
    assert c.common_steps == 0
    d = c.divergence
    assert (d.a.number, d.b.number) == (1, 1)
    assert d.reasons == ["arguments"]
    assert d.a.action == d.b.action == "run_python"
    assert d.explanation == "different arguments or code"
    # From there: the parent's step 2 (delegate) and step 3 (run_python, observation
    # success false) have no counterpart; both end with their {"action":"final"} step
    # (parent step 4, child step 2), paired, with different final answers.
    layout = [(r.a and r.a.number, r.b and r.b.number, r.status, r.reasons) for r in c.rows]
    assert layout == [
        (1, 1, "differs", ["arguments"]),
        (2, None, "only_a", ["action"]),
        (3, None, "only_a", ["action"]),
        (4, 2, "differs", ["text"]),
    ]
    assert c.rows[2].a.ok is False


def test_rlm_parent_and_child_figures_and_deltas(corpus):
    c = compare_sessions(load(corpus, PARENT), load(corpus, CHILD))
    # Steps: 4 step lines vs 2. Tool calls: run_python, delegate, run_python vs run_python
    # ("final" steps call nothing). Errors: parent step 3 has observation.success false.
    assert (figure(c, "Steps").a, figure(c, "Steps").b, figure(c, "Steps").delta) == (4, 2, -2)
    assert (figure(c, "Tool calls").a, figure(c, "Tool calls").b, figure(c, "Tool calls").delta) == (3, 1, -2)
    assert (figure(c, "Errors").a, figure(c, "Errors").b, figure(c, "Errors").delta) == (1, 0, -1)
    # Tokens: the parent's step usages are 86+66, 296+132, 133+66, 165+40 = 984, but step 2's
    # 3 calls include the delegated child's 2 (its final line: 189+84 = 273), which count in
    # the child session only: 984 - 273 = 711. Child: 82+62 + 107+22 = 273.
    tokens = figure(c, "Tokens")
    assert (tokens.a, tokens.b, tokens.delta) == (711, 273, -438)
    # Rewards: final lines say total_reward 2.2 (0.8+0.7-0.3+1.0) and 1.8 (0.8+1.0).
    reward = figure(c, "Reward")
    assert (reward.a, reward.b) == (pytest.approx(2.2), pytest.approx(1.8))
    assert reward.delta == pytest.approx(-0.4) and reward.better == "a"
    assert figure(c, "Reward per 1k tokens").a == pytest.approx(2.2 / 711 * 1000)
    # Durations: 15:58:57.978912 -> 15:58:58.036263 and 15:58:58.003311 -> 15:58:58.021252.
    duration = figure(c, "Duration")
    assert (duration.a, duration.b) == (pytest.approx(0.057351), pytest.approx(0.017941))
    assert duration.delta == pytest.approx(-0.03941)
    # No cost in the logs and no price for an unnamed model: unknown, so no delta (never $0).
    cost = figure(c, "Cost")
    assert cost.a.priced_steps == 0 and cost.delta is None


def test_claude_warmup_subagents_share_the_prompt_and_diverge_at_the_reply(corpus):
    # Both files: line 1 a user "Warmup", line 2 an assistant text-only reply, different
    # ("I'll start by exploring..." vs "I'm Claude Code..."): one common step, then step 2.
    c = compare_sessions(load(corpus, WARMUP_A), load(corpus, WARMUP_B))
    assert c.common_steps == 1
    assert (c.divergence.a.number, c.divergence.b.number, c.divergence.reasons) == (2, 2, ["text"])
    assert [r.status for r in c.rows] == ["same", "differs"]
    # Tokens: A 3 input + 16976 cache write + 3 output = 16982; B 16878 + 237 = 17115.
    assert (figure(c, "Tokens").a, figure(c, "Tokens").b, figure(c, "Tokens").delta) == (16982, 17115, 133)
    # A: sonnet-4.5, 3*3 + 3*15 + 16976*3.75 = 63714 -> $0.063714; B: Bedrock regional haiku 4.5,
    # 16878*1.1 + 237*5.5 = 19869.3 -> $0.0198693 (genai-prices 0.2.3 rates per MTok).
    cost = figure(c, "Cost")
    assert cost.a.priced_steps == 1 and cost.b.priced_steps == 1
    assert cost.delta == pytest.approx(0.0198693 - 0.063714)
    # 19:37:37.159 -> 19:38:56.408 vs 19:37:37.157 -> 19:37:42.118.
    assert figure(c, "Duration").delta == pytest.approx(4.961 - 79.249)
    assert all(f.label != "Reward" for f in c.figures)  # Claude Code has no rewards


def test_the_same_rlm_run_as_snapshot_and_as_event_log_does_not_diverge(corpus):
    snapshot = load(corpus, "rlm/generated/store/snapshots/sess-run_20261122_155857_978574_c0145c6944cf.json")
    events = load(corpus, "rlm/generated/sessions/run_20261122_155857_978574.session.jsonl")
    c = compare_sessions(snapshot, events)
    assert c.identical and c.common_steps == 4
    assert all(r.status == "same" for r in c.rows)
    assert figure(c, "Reward").delta == 0


# Hand-made sessions for the alignment rules the corpus pairs do not exercise.
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def session(name: str, *steps: Step, cost: float | None = 0.01) -> Session:
    s = Session(id=name, format="glue", steps=list(steps), started_at=T0, ended_at=T0 + timedelta(seconds=10))
    for step in s.steps:
        step.cost = Cost(cost, "log") if cost is not None else Cost.unknown()
    s.number_steps()
    return s


def shell(command: str, failed: bool = False) -> Step:
    return Step("assistant", text="any wording", tool_calls=[ToolCall("shell", code=command, is_error=failed)])


def test_context_is_skipped_and_wording_beside_a_call_is_ignored():
    a = session("a", Step("context", text="env A"), Step("user", text="fix it"), shell("ls"))
    b = session("b", Step("user", text="fix  it"), shell("ls"))
    b.steps[1].text = "other wording"
    c = compare_sessions(a, b)
    assert c.identical and c.common_steps == 2
    assert [(r.a.number, r.b.number) for r in c.rows] == [(2, 1), (3, 2)]


def test_an_extra_step_is_the_divergence_and_the_rest_realigns():
    a = session("a", Step("user", text="go"), shell("ls"), shell("make"), shell("make test"))
    b = session("b", Step("user", text="go"), shell("ls"), shell("make test"))
    c = compare_sessions(a, b)
    assert (c.divergence.a.number, c.divergence.b, c.divergence.reasons) == (3, None, ["action"])
    assert c.divergence.explanation == "A takes a step (shell) that B does not"
    assert [(r.a and r.a.number, r.b and r.b.number, r.status) for r in c.rows][2:] == [(3, None, "only_a"), (4, 3, "same")]


def test_same_call_different_outcome_and_session_end():
    a = session("a", shell("pytest", failed=True), shell("git commit"))
    b = session("b", shell("pytest"))
    c = compare_sessions(a, b)
    assert c.divergence.reasons == ["outcome"]
    assert c.divergence.explanation == "different success (failed in A, succeeded in B)"
    assert c.rows[-1].status == "only_a"
    ended = compare_sessions(b, session("c", shell("pytest"), shell("ls")))
    assert ended.divergence.explanation == "A ends here; B goes on (shell)"


def test_an_unknown_or_lower_bound_cost_has_no_delta():
    known, unknown = session("a", shell("ls")), session("b", shell("ls"), cost=None)
    assert figure(compare_sessions(known, known), "Cost").delta == 0
    assert figure(compare_sessions(known, unknown), "Cost").delta is None
    partly = session("c", shell("ls"), shell("pwd"))
    partly.steps[1].cost = Cost.unknown()
    assert figure(compare_sessions(known, partly), "Cost").delta is None


def hrefs(page) -> list[str]:
    return [tag["href"] for tag in page.find_all(href=True)]


def test_standalone_page_is_one_self_contained_file(corpus, tmp_path):
    out = tmp_path / "compare.html"
    result = runner.invoke(app, ["compare", str(corpus / PARENT), str(corpus / CHILD), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "diverge at A step 1 / B step 1: different arguments or code" in result.stdout
    page = soup(out)
    assert not external_references(page)
    assert not page.find("link") and not page.find("script", src=True)
    assert ".compare-timeline" in page.style.string and ".highlight" in page.style.string
    # Its CSP admits that one <style> by hash, and nothing inline besides.
    css_hash = base64.b64encode(hashlib.sha256(page.style.string.encode()).digest()).decode()
    csp = page.find("meta", attrs={"http-equiv": "Content-Security-Policy"})["content"]
    js_hash = base64.b64encode(hashlib.sha256(page.find("script").string.encode()).digest()).decode()
    assert f"style-src 'sha256-{css_hash}'" in csp and f"script-src 'sha256-{js_hash}'" in csp
    assert "unsafe-inline" not in csp and "'self'" not in csp
    # No page beside it: every link must be a fragment of this page, and step numbers plain.
    ids = {tag["id"] for tag in page.find_all(id=True)}
    for href in hrefs(page):
        assert href.startswith("#") and href[1:] in ids, href
    first = page.select_one("tr.first-divergence")
    assert [td.get_text(strip=True) for td in first.select("td.num")] == ["#1", "#1"]
    assert "different arguments or code" in page.select_one("#divergence").get_text()
    # Deterministic: the same logs give the same file.
    again = tmp_path / "again.html"
    runner.invoke(app, ["compare", str(corpus / PARENT), str(corpus / CHILD), "-o", str(again)])
    assert again.read_bytes() == out.read_bytes()


def test_compare_accepts_session_ids_under_source(corpus, tmp_path):
    out = tmp_path / "c.html"
    result = runner.invoke(app, ["compare", "run_20261122_155857_978574", "run_20261122_155858_003148",
                                 "--source", str(corpus / "rlm/generated/runs"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    missing = runner.invoke(app, ["compare", "nosuch", "run_2026", "--source", str(corpus / "rlm/generated/runs")])
    assert missing.exit_code == 1 and "no session with id 'nosuch'" in missing.stderr


def test_build_compare_pages_link_to_the_steps_and_from_the_index(corpus, tmp_path):
    site = tmp_path / "site"
    result = runner.invoke(app, ["build", str(corpus / "rlm/generated/runs"), "-o", str(site), "-q",
                                 "--compare", f"{corpus / PARENT}:run_20261122_155858"])
    assert result.exit_code == 0, result.output
    pages = sorted((site / "compare").glob("*.html"))
    assert len(pages) == 1
    index_links = [h for h in hrefs(soup(site / "index.html")) if h.startswith("compare/")]
    assert index_links == [f"compare/{pages[0].name}"]
    page = soup(pages[0])
    step_links = []
    for href in hrefs(page):
        parts = urlsplit(href)
        target = (pages[0].parent / parts.path).resolve() if parts.path else pages[0]
        assert target.is_file(), href
        if parts.fragment.startswith("step-"):
            assert int(parts.fragment[5:]) in step_numbers(soup(target)), href
            step_links.append(href)
    # Parent steps 1-4 and child steps 1-2, each linked once in the timeline (plus the divergence).
    assert len(step_links) == 4 + 2 + 2
    assert run_sitecheck(site).endswith("0 problems")


def test_build_compare_with_an_unknown_session_fails_clearly(data, tmp_path):
    result = runner.invoke(app, ["build", str(data), "-o", str(tmp_path / "s"), "--compare", "nosuch:other"])
    assert result.exit_code == 1 and "--compare 'nosuch:other'" in result.stderr
    bad = runner.invoke(app, ["build", str(data), "-o", str(tmp_path / "s"), "--compare", "just-one"])
    assert bad.exit_code == 1 and "expected A:B" in bad.stderr
