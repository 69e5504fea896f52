"""Codex CLI 0.148 records, from the hand-written fixture tests/data/codex/v0148 (shapes from openai/codex's
protocol types as other public readers of 0.14x rollouts document them).

Parent rollout P (25 lines): 1 meta; 2 turn_context (gpt-5); 3 prompt "Draw a logo and load the deps";
4 response_item image_generation_call ig_1 (a base64 PNG); 5 image_generation_end ig_1 (saved_path);
6-7 dynamic_tool_call_request dt_1 (camelCase callId) and its response (snake_case, one inputText item,
1.5 s); 8-9 dynamic tool dt_2 vault.list_secrets, answered success false, "permission denied: vault locked";
10 exec_command call_3; 11 its output written as ONE OBJECT whose text item keeps its text under
`output_text`; 12 a function_call_output for call_gone, a call not in the file; 13 token_usage_record
resp_1: 2,500 in / 500 out (3,000); 14 answer; 15 token_count whose running total is 132,000
(130,000 in / 2,000 out); 16 task_complete; then notices: 17 warning; 18 thread_goal_updated {goal:
{objective}}; 19 item_completed with a Plan item; 20 model_reroute gpt-5 -> gpt-5-mini; 21 safety_buffering
(telemetry, not shown); 22 thread_rolled_back 1 turn; then response items: 23 additional_tools (not
shown); 24 agent_message from /root to /root/contrast; 25 context_compaction.
Child rollout C (9 lines): its meta, source {"subagent": {"thread_spawn": {"parent_thread_id": P}}} and
neither forked_from_id nor thread_source; 2-4 P's meta, first turn_context and prompt replayed; 5 its own
turn (a UUIDv7 minted after C); 6 prompt "Check the logo's contrast against white"; 7 answer; 8 token_count
with only a running total (250 in / 50 out); 9 task_complete.

gpt-5 in genai-prices: $1.25 / MTok input, $10 / MTok output. P: 2,500 * 1.25 + 500 * 10 = 8,125 µ$, a lower
bound (the log's running total is 44 times the records); C: 250 * 1.25 + 50 * 10 = 812.5 µ$.
"""
from __future__ import annotations

import pytest

from replay_site.costs import price_session
from replay_site.discover import find_sources
from replay_site.figures.summary import summarize
from replay_site.pages.formatting import summary_cost
from replay_site.readers.codex.reader import READER

P = "01a0efff-0000-7000-8000-00000000a148"
C = "01a0f000-0000-7000-8000-00000000c148"


@pytest.fixture
def parent(data):
    problems: list = []
    [source] = find_sources(data / "codex/v0148", [READER], problems)
    assert problems == []
    [session] = READER.read(source)
    price_session(session)
    return session


def calls(session):
    return {call.id: call for step in session.steps for call in step.tool_calls}


def test_every_kind_0148_writes_is_read_with_no_unknown_stub(parent):
    for session in parent.walk():
        assert session.records["unknown"] == {}
        assert not [p for p in session.problems if p.kind == "unknown_event"]
        assert not [s for s in session.steps if (s.title or "").startswith("Unknown Codex")]


def test_image_generation_is_a_call_with_its_picture_and_where_it_was_saved(parent):
    image = calls(parent)["ig_1"]
    assert image.name == "image_generation" and not image.is_error and not image.orphan
    assert image.arguments == {"revised_prompt": "a blue hexagon logo"}
    assert [(each.media_type, each.data_base64) for each in image.images] == [("image/png", "iVBORw0KGgo=")]
    assert image.output == "saved to /home/dev/.codex/generated_images/t1/ig_1.png"


def test_dynamic_tool_calls_are_calls_and_a_failed_one_is_a_failure(parent):
    loaded, locked = calls(parent)["dt_1"], calls(parent)["dt_2"]
    assert (loaded.name, loaded.output, loaded.is_error, loaded.duration_s) == ("load_workspace_dependencies", "3 packages loaded", False, 1.5)
    assert (locked.name, locked.arguments, locked.is_error) == ("vault.list_secrets", {"scope": "ci"}, True)
    assert locked.output == "permission denied: vault locked"
    # image, two dynamic tools, exec_command: 4 calls, 1 failed; the result without a call is not a call
    assert (parent.tool_calls, parent.failed_tool_calls) == (4, 1)


def test_an_output_written_as_one_object_with_output_text_items_is_shown(parent):
    assert calls(parent)["call_3"].output == '[project]\nname = "logo"'


def test_an_orphan_result_is_shown_but_not_counted_as_a_call(parent):
    orphan = calls(parent)["call_gone"]
    assert orphan.orphan and orphan.output == "a result whose call is not in this file"
    summary = summarize(parent, "Codex", "p.html", "p.html")
    assert summary.tool_calls == 4


def test_a_running_total_beyond_the_per_response_records_is_a_lower_bound_with_a_note(parent):
    assert parent.usage.total == 3000 and parent.usage.partial  # the records, counted once each
    note = {fact.label: fact.value for fact in parent.facts}["Usage incomplete"]
    assert "132,000" in note and "3,000" in note
    assert parent.cost.usd == pytest.approx(8125e-6) and parent.cost.is_lower_bound
    summary = summarize(parent, "Codex", "p.html", "p.html")
    assert summary.partial_steps == 1 and summary.cost_is_lower_bound
    assert summary_cost(summary).text == "≥ $0.0081"


def test_a_thread_spawn_child_is_titled_by_its_own_task_and_its_copy_left_out(parent):
    [child] = parent.children
    assert child.id == C and child.parent_id == P and child.relation == "subagent"
    assert child.title == "Check the logo's contrast against white"
    assert [step.text for step in child.steps if step.kind == "user"] == ["Check the logo's contrast against white"]
    # A running total alone (no last_token_usage) is that response's usage, and matches itself: no note.
    assert child.usage.total == 300 and not child.usage.partial
    assert "Usage incomplete" not in {fact.label for fact in child.facts}
    assert child.cost.usd == pytest.approx(812.5e-6)


def test_notices_are_steps_and_telemetry_is_left_out_by_design(parent):
    titled = {step.title: step for step in parent.steps}
    assert titled["Warning"].text.startswith("Model metadata for gpt-5 not found")
    assert titled["Goal updated"].text == "Ship the logo"
    assert titled["Plan"].kind == "context" and titled["Plan"].text == "1. draw\n2. check contrast"
    assert "Model rerouted from gpt-5 to gpt-5-mini" in titled
    assert "Thread rolled back 1 turn(s)" in titled
    assert parent.records["not_shown"]["event_msg/safety_buffering"] == 1
    assert parent.records["shown"]["event_msg/item_completed"] == 1
    assert parent.records["not_shown"]["response_item/additional_tools"] == 1
    assert titled["Message from /root to /root/contrast"].text == "Check the contrast too"
    assert parent.steps[-1].title == "Context compacted"
