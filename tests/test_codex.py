"""Codex reader: every figure below was worked out by hand from the raw lines (how is written beside it).

Helpers used on the raw files (run from shared/corpus/codex):
  RUNS  = model responses: maximal runs of model items (reasoning, assistant message, *_call) broken by a
          tool output or a user message (response_item or user_message event) -- a small python loop:
          for each line p=obj.get('payload',obj): in-run when p.type in model items, run ends on outputs/users.
  USAGE = python3 -c "import json,sys; rows=[json.loads(l) for l in open(sys.argv[1])];
          print([r['payload']['info']['last_token_usage'] for r in rows if r.get('type')=='event_msg'
          and r['payload']['type']=='token_count' and r['payload']['info']])"   (then drop an entry whose
          total_token_usage equals the previous one: a re-emission)
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay_site.discover import find_sources
from replay_site.readers import SessionSource, registry
from replay_site.readers.codex.outputs import classify
from replay_site.readers.codex.patch import parse_apply_patch
from replay_site.readers.codex.reader import READER

REAL_125 = "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
DESKTOP = "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
GEN_020 = "generated-0.20.0/sessions/2026/11/22/rollout-2026-11-22T15-57-49-c1c2662e-d9c8-47e6-92c7-f20617aaa6e8.jsonl"
GEN_047 = "generated-0.47.0/sessions/2026/11/22/rollout-2026-11-22T15-57-17-01a203f9-e260-7c12-8a26-5ff02c66842f.jsonl"
GEN_169 = "generated-0.169.0/sessions/2026/11/22/rollout-2026-11-22T15-57-21-01a203f9-ef3a-7a82-926c-a0d7af48527a.jsonl"


def read_one(path: Path, root: Path | None = None):
    sources = list(find_sources(path, [READER], []))
    assert len(sources) == 1, sources
    sessions = READER.read(sources[0])
    assert len(sessions) == 1
    return sessions[0]


def raw(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# (file, steps, tool calls, failed calls, errors, input(uncached), output, cache_read, reasoning)
CORPUS_FIGURES = [
    # 66 RUNS + 1 developer context + 2 context parts in line 4 (AGENTS.md, environment_context) + 2 prompts = 71.
    # Calls: 99 function_call + 3 custom_tool_call + 3 web_search_call = 105 (jq: count payload.type).
    # Failed 5: line 35 write_stdin output "write_stdin failed: ..." (bare error) and exec_command_end
    # exit_code != 0 for the calls of lines 131, 150, 203, 263 (exit 2,1,1,1). The write_stdin polls at
    # lines 142/164/217/272 print the same processes' "Process exited with code N": not counted again.
    # Tokens: USAGE gives 66 distinct entries; sums input 6055836, cached 4929536, output 9118, reasoning 1759
    # -> uncached input 6055836-4929536 = 1126300.
    (REAL_125, 71, 105, 5, 5, 1126300, 9118, 4929536, 1759),
    # Desktop: 20 RUNS + 3 user_message events (no response_item user messages) = 23; 38 function_call;
    # one failure: `ps -ef | rg -i "Google Chrome…"` output "Process exited with code 1"; no token_count at all.
    (DESKTOP, 23, 38, 1, 1, 0, 0, 0, 0),
    # Pre-envelope: 5 RUNS + 1 prompt; 4 local_shell_call; call_t2 JSON metadata exit_code 1; no usage in 0.20.0.
    (GEN_020, 6, 4, 1, 1, 0, 0, 0, 0),
    # 8 RUNS + environment_context + 2 prompts = 11; 4 shell + 2 apply_patch; call_i2 metadata exit_code 1.
    # USAGE: 16 token_count, 2 with info null, 6 re-emissions -> 8 responses; input 28879, cached 16384,
    # output 1149, reasoning 48 -> uncached 12495. (= final totals 16762 + 13266 of the two runs, see below.)
    (GEN_047, 11, 6, 1, 1, 12495, 1149, 16384, 48),
    # 7 RUNS + 6 context (developer skills msg, environment_context, world_state at lines 3-5; developer
    # model_switch, developer skills msg, world_state at lines 49-51) + 2 prompts = 15; 5 exec_command + 1 apply_patch; call_x3 exit 1.
    # 7 token_usage_record (token_count repeats them: ignored): input 97348, cached 86016 -> 11332; out 857.
    (GEN_169, 15, 6, 1, 1, 11332, 857, 86016, 32),
    # turn-2 is turn-1 plus a 2nd turn: 2 RUNS + 2 prompts + 4 context (permissions, environment x2) = 8;
    # USAGE 2 entries: input 1024+1100, cached 512+512 -> 1100 uncached; output 12+20; reasoning 8+10.
    ("codemie-session-fixture/turn-2.jsonl", 8, 0, 0, 0, 1100, 32, 1024, 18),
    # 1 prompt (event only) + 3 responses: exec (then output "ok"), spawn_agent (closed by the only
    # token_count), wait_agent. 3 calls, none failed; usage 5000-1000 uncached, 1000 cached, 200 out.
    ("codemie-session-fixture/turn-spawn-skill.jsonl", 4, 3, 0, 0, 4000, 200, 1000, 0),
]


@pytest.mark.parametrize("name,steps,calls,failed,errors,inp,out,cache,reasoning", CORPUS_FIGURES)
def test_corpus_figures(corpus, name, steps, calls, failed, errors, inp, out, cache, reasoning):
    session = read_one(corpus / "codex" / name)
    assert len(session.steps) == steps
    assert session.tool_calls == calls
    assert session.failed_tool_calls == failed
    assert session.error_count == errors
    usage = session.usage
    assert (usage.input, usage.output, usage.cache_read, usage.reasoning) == (inp, out, cache, reasoning)
    assert [s.number for s in session.steps] == list(range(1, steps + 1))
    assert not [p for p in session.problems if p.kind != "warning"], session.problems


def test_cumulative_tokens_real_lines(corpus):
    """total_token_usage is a running total: the last one equals the sum of last_token_usage; summing totals is wrong."""
    rows = raw(corpus / "codex" / REAL_125)
    infos = [r["payload"]["info"] for r in rows if r["type"] == "event_msg" and r["payload"]["type"] == "token_count"]
    infos = [i for i in infos if i]
    final = infos[-1]["total_token_usage"]
    lasts = [i["last_token_usage"] for i in infos]
    assert sum(u["input_tokens"] for u in lasts) == final["input_tokens"] == 6055836
    assert sum(u["output_tokens"] for u in lasts) == final["output_tokens"] == 9118
    summed_totals = sum(i["total_token_usage"]["input_tokens"] for i in infos)
    assert summed_totals > 10 * final["input_tokens"]  # the viewer bug we must not have
    session = read_one(corpus / "codex" / REAL_125)
    assert session.usage.input + session.usage.cache_read == final["input_tokens"]
    assert session.usage.output == final["output_tokens"]


def test_reemitted_token_count_counted_once(corpus):
    # 0.47.0 re-emits each token_count after turn_context (lines 9/15, 16/20, ...) and restarts totals on
    # resume (line 44: 4218 after 16762). Each response once: 16762 + 13266 = 30028 tokens in all.
    session = read_one(corpus / "codex" / GEN_047)
    assert session.usage.total == 16762 + 13266
    assert sum(1 for s in session.steps if s.usage) == 8


def test_each_assistant_text_once(corpus):
    for name in (REAL_125, GEN_047, GEN_169, "codemie-session-fixture/turn-2.jsonl"):
        session = read_one(corpus / "codex" / name)
        rows = raw(corpus / "codex" / name)
        messages = [
            "".join(c["text"] for c in r["payload"]["content"])
            for r in rows
            if r.get("type") == "response_item" and r["payload"]["type"] == "message" and r["payload"]["role"] == "assistant"
        ]
        shown = "\n\n".join(s.text for s in session.steps if s.kind == "assistant" and s.text)
        for text in messages:
            assert shown.count(text) == 1, (name, text[:60])
        # the agent_message events repeat these texts: nothing beyond them is shown
        assert len(shown) == sum(map(len, messages)) + 2 * (len(messages) - 1)
    session = read_one(corpus / "codex" / GEN_047)
    assert [s.thinking for s in session.steps if s.thinking] == [
        "**Looking at restock()**",
        "**Off-by-one in the comparison**",
        "**Planning total_value**\n\nNeeds a new function plus a test; both files exist already.",
    ]


def test_models_and_edits(corpus):
    session = read_one(corpus / "codex" / GEN_169)
    # turn_context + thread_settings_applied switch gpt-5.5 -> gpt-5.4 on resume (lines 46-52).
    assert session.models == ["gpt-5.5", "gpt-5.4"]
    patch = next(c for s in session.steps for c in s.tool_calls if c.name == "apply_patch")
    # the item_completed FileChange diff (line 33) wins over re-parsing the patch text
    assert [(c.path, c.kind) for c in patch.changes] == [("textutil.py", "modify")]
    assert patch.changes[0].diff.startswith("@@ -5,3 +5,3 @@")
    heredoc = read_one(corpus / "codex" / GEN_020)
    call = heredoc.steps[3].tool_calls[0]  # `apply_patch <<'EOF'` inside a local_shell_call
    assert call.language == "bash" and call.code.startswith("apply_patch <<'EOF'")
    assert [(c.path, c.kind) for c in call.changes] == [("temps.py", "modify")]
    assert "+    return c * 9 / 5 + 32" in call.changes[0].diff
    two = read_one(corpus / "codex" / GEN_047)
    multi = [c for s in two.steps for c in s.tool_calls if c.name == "apply_patch"][1]
    assert [c.path for c in multi.changes] == ["inventory.py", "test_inventory.py"]


def test_same_rollout_twice_read_once(corpus):
    # turn-1.jsonl is a prefix copy of turn-2.jsonl (same thread id): one session, with a warning.
    sources = [s for s in find_sources(corpus / "codex" / "codemie-session-fixture", [READER], []) if s.path.name.startswith("turn-")]
    family = next(s for s in sources if s.path.name == "turn-2.jsonl")
    assert [p.name for p in family.related] == ["turn-1.jsonl"]
    (session,) = READER.read(family)
    assert len(session.steps) == 8
    assert any("turn-1.jsonl" in str(p) and p.kind == "warning" for p in session.problems)


def test_spawn_links_child(corpus):
    session = read_one(corpus / "codex" / "codemie-session-fixture" / "turn-spawn-skill.jsonl")
    spawn = next(c for s in session.steps for c in s.tool_calls if c.name == "spawn_agent")
    assert spawn.child_session_id == "child-thread-uuid"  # collab_agent_spawn_end.new_thread_id


def test_find_claims_only_codex(corpus):
    found = {s.path.name for s in find_sources(corpus, [READER], [])}
    assert found and all(name.startswith(("rollout-", "turn-")) for name in found)
    assert not list(find_sources(corpus / "claude", [READER], []))
    assert not list(find_sources(corpus / "rlm", [READER], []))


# -- hand-written examples in tests/data/codex ----------------------------------------------------


def test_example_envelope_with_subagent(data):
    (source,) = [s for s in find_sources(data / "codex", [READER], []) if s.path.name.endswith("000000000001.jsonl")]
    (parent,) = READER.read(source)
    # steps: permissions + environment context, prompt, 3 responses with calls, unknown-event stub, final answer
    assert [s.kind for s in parent.steps] == ["context", "context", "user", "assistant", "assistant", "assistant", "event", "assistant"]
    assert parent.steps[0].collapsed and parent.steps[6].title.startswith("Unknown Codex event")
    assert sorted(p.kind for p in parent.problems) == ["bad_line", "unknown_event"]  # torn last line + stub
    failing = parent.steps[3].tool_calls[0]
    assert (failing.is_error, failing.exit_code, failing.code, failing.language) == (True, 2, "python3 -m unittest test_calc", "bash")
    patch = parent.steps[5].tool_calls[0]
    assert [(c.path, c.kind) for c in patch.changes] == [("calc.py", "modify"), ("NOTES.md", "add")]
    assert parent.steps[3].thinking == "**Run the tests first**" and parent.steps[3].text == "Running the tests."
    # 4 distinct token_count events (one re-emitted at 10:00:06): input 1000+1200+1400+1500=5100,
    # cached 200+1000+1100+1400=3700 -> uncached 1400; output 50+30+60+40=180; reasoning 15.
    u = parent.usage
    assert (u.input, u.cache_read, u.output, u.reasoning) == (1400, 3700, 180, 15)
    (child,) = parent.children
    assert (child.relation, child.parent_id, len(child.steps)) == ("subagent", parent.id, 2)
    assert parent.usage_with_children.total == u.total + 520


def test_exec_command_end_gives_output_exit_code_and_duration(data):
    # rollout-…0003: `pytest -q` outlives its 1 s yield ("Process running with session ID 4242",
    # empty output, wall time 1.0010 s); exec_command_end (call_tests) carries the whole output,
    # exit_code 1 and duration 4 s + 250,000,000 ns = 4.25 s; the write_stdin poll that saw it
    # exit repeats the same 81 bytes ("F.\n" 3 + the FAILED line 50 + the summary line 28).
    [session] = READER.read(find_sources(data / "codex/sessions/2026/01/03", [READER], [])[0])
    calls = [call for step in session.steps for call in step.tool_calls]
    tests, poll, search, lost = calls
    assert tests.output == "F.\nFAILED test_calc.py::test_div - ZeroDivisionError\n1 failed, 1 passed in 0.02s\n"
    assert (tests.exit_code, tests.is_error, tests.duration_s) == (1, True, 4.25)
    # The poll is a line linked to the command, not raw JSON, and its bytes are not shown twice.
    assert poll.arguments == "waited on `pytest -q` (call call_tests)"
    assert poll.output == "81 more bytes of its output, shown with that command"
    assert (poll.is_error, poll.exit_code) == (False, None)
    assert session.failed_tool_calls == 1  # the failure counted once, on the command
    # A web search: the query is the input; the log holds no results.
    assert search.arguments == {"query": "pytest -x flag"}
    assert search.output.startswith("No results recorded") and not search.missing_result
    # `cat test_calc.py` never got an output or an end event: "no result", never ok.
    assert lost.missing_result and lost.output is None


def test_example_simplified_shape(data):
    session = read_one(data / "codex" / "simplified.jsonl")
    assert [s.kind for s in session.steps] == ["user", "assistant", "assistant"]
    assert session.steps[1].thinking == "Use ls." and session.failed_tool_calls == 1
    assert (session.usage.input, session.usage.cache_read, session.usage.output) == (300, 400, 30)


def test_registered_and_default_dirs(monkeypatch, tmp_path):
    assert registry()["codex"] is READER
    monkeypatch.setenv("CODEX_HOME", str(tmp_path))
    assert READER.default_dirs() == [tmp_path / "sessions", tmp_path / "archived_sessions"]


def test_ts_json_and_pre_envelope(tmp_path):
    ts = tmp_path / "rollout-2025-04-20-11111111-2222-3333-4444-555555555555.json"
    ts.write_text(json.dumps({
        "session": {"timestamp": "2025-04-20T10:00:00Z", "id": "11111111-2222-3333-4444-555555555555", "instructions": ""},
        "items": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["ls", "-la"]}), "call_id": "c1"},
            {"type": "function_call_output", "call_id": "c1", "output": json.dumps({"output": "nope", "metadata": {"exit_code": 2, "duration_seconds": 0.1}})},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]},
        ],
    }, indent=2))
    session = read_one(ts)
    assert [s.kind for s in session.steps] == ["user", "assistant", "assistant"]
    call = session.steps[1].tool_calls[0]
    assert (call.code, call.exit_code, call.is_error, call.output) == ("ls -la", 2, True, "nope")


def test_output_variants():
    assert classify("apply_patch verification failed: no such file").is_error
    assert not classify("Plan updated").is_error
    info = classify("Exit code: 3\nWall time: 1.5 seconds\nOutput:\nboom")
    assert (info.exit_code, info.is_error, info.duration_s, info.text) == (3, True, 1.5, "boom")
    assert classify({"content": "x", "success": False}).is_error
    assert classify("Chunk ID: a\nWall time: 1 seconds\nProcess running with session ID 7\nOutput:\n").running_session == "7"


def test_apply_patch_rename_and_delete():
    changes = parse_apply_patch(
        "*** Begin Patch\n*** Update File: /w/a.py\n*** Move to: /w/b.py\n@@\n-x\n+y\n*** Delete File: /w/c.py\n*** End Patch",
        "/w",
    )
    assert [(c.path, c.kind, c.new_path) for c in changes] == [("a.py", "rename", "b.py"), ("c.py", "delete", None)]


def test_fork_shows_own_steps(tmp_path):
    def line(kind, payload, second):
        return json.dumps({"timestamp": f"2026-01-01T00:00:{second:02d}Z", "type": kind, "payload": payload})

    prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "first"}]}
    answer = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "one"}]}
    (tmp_path / "parent.jsonl").write_text("\n".join([
        line("session_meta", {"id": "P", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}, 0),
        line("response_item", prompt, 1), line("response_item", answer, 2)]) + "\n")
    (tmp_path / "fork.jsonl").write_text("\n".join([
        line("session_meta", {"id": "F", "forked_from_id": "P", "timestamp": "2026-01-01T00:01:00Z"}, 3),
        line("session_meta", {"id": "P", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}, 3),
        line("response_item", prompt, 3), line("response_item", answer, 3),
        line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "second"}]}, 4)]) + "\n")
    (source,) = find_sources(tmp_path, [READER], [])
    (parent,) = READER.read(source)
    (fork,) = parent.children
    # The copied history (the parent's meta, prompt and answer: 3 lines) is one folded note, then the fork's own step.
    assert (fork.relation, fork.parent_id, [s.text for s in fork.steps[1:]]) == ("fork", "P", ["second"])
    assert (fork.steps[0].title, fork.steps[0].collapsed) == ("Copied from thread P", True)
    assert isinstance(source, SessionSource) and len(parent.steps) == 2
