"""The Glue reader against the real corpus (figures counted by hand) and tests/data/glue."""
from __future__ import annotations

from pathlib import Path

import orjson

from replay_site.discover import find_sources
from replay_site.model import Session, ToolCall, Usage
from replay_site.readers import SessionSource, registry
from replay_site.readers.glue.reader import READER
from replay_site.readers.glue.steps import apply_result


def read_one(path: Path, root: Path | None = None) -> Session:
    """Read the one session at `path`, found from `root` as a build would (labels are relative to it)."""
    sources = [source for source in find_sources(root or path, [READER], []) if source.path == path]
    assert len(sources) == 1, sources
    (session,) = READER.read(sources[0])
    return session


def figures(session: Session) -> tuple[int, int, int, int]:
    return len(session.steps), session.tool_calls, session.failed_tool_calls, session.error_count


def assert_numbered(session: Session) -> None:
    for each in session.walk():
        assert [step.number for step in each.steps] == list(range(1, len(each.steps) + 1))


# --- discovery -----------------------------------------------------------------


def test_registered_and_default_dir():
    assert registry()["glue"] is READER
    assert READER.default_dirs() == [Path.home() / ".glue" / "sessions"]


def test_find_corpus_claims_only_glue(corpus):
    # Scanning the whole corpus must not claim gptme's conversation.jsonl (rows have `role`)
    # nor Claude/Codex/rlm files (other `type` names or no `type`).
    found = sorted(source.rel for source in find_sources(corpus, [READER], []))
    assert found == [
        "glue/constructed/1772232065887-8t",
        "glue/constructed/1789374063402-48211-1k2x9fq",
        "glue/constructed/1790946341220-77310-3q8w0zd",
        "glue/docs-example-legacy",
        "glue/docs-example-mixed-v1-and-legacy",
    ]
    gptme = next((corpus / "gptme").iterdir())
    assert list(find_sources(gptme, [READER], [])) == []
    assert list(find_sources(gptme / "conversation.jsonl", [READER], [])) == []


def test_find_session_folder_and_bare_file(corpus):
    folder = corpus / "glue" / "docs-example-legacy"
    (source,) = find_sources(folder, [READER], [])
    assert source.path == folder and source.rel == "docs-example-legacy"
    (source,) = find_sources(folder / "conversation.jsonl", [READER], [])
    assert source.path == folder / "conversation.jsonl"


# --- the real corpus, figures worked out by hand ----------------------------------


def test_constructed_parallel_calls_and_edits(corpus):
    """1789374063402: 30 v1 rows.

    Steps (row numbers): 1 user (r1); 2 title event (usage r2 + title_generated r3);
    3 assistant r4-r8 (text, 3 parallel calls, usage; results r9-r11 come back
    grep, read, read); 4 r12-r14 (edit_file, fails r15); 5 r16-r18 (edit_file ok, diff r19);
    6 r20-r21 (bash exit 0, r22); 7 r23-r25 (bash exit 2, r26); 8 usage r27 + final text r28
    (the final answer's usage row precedes its text); 9 title event (usage r29 + r30) = 9 steps.
    Tool calls 3+1+1+1+1 = 7; failed: edit_file r15 (success false), bash r26 (exit 2) = 2.
    Tokens, main rows r8 r14 r18 r21 r25 r27:
      input 3118+1406+518+402+461+288 = 6193, output 187+164+141+48+77+236 = 853,
      cache_read 9874+11265+11667+12044+12333 = 57183, cache_creation 9874+1391+402+377+289+318 = 12651;
    title rows r2, r29: input 212+655 = 867, output 9+11 = 20.
    Total 6193+867 + 853+20 + 57183 + 12651 = 77767 = meta.json token_count.
    """
    session = read_one(corpus / "glue" / "constructed" / "1789374063402-48211-1k2x9fq")
    assert figures(session) == (9, 7, 2, 2)
    assert session.usage == Usage(input=7060, output=873, cache_read=57183, cache_write_5m=12651)
    assert session.usage.total == 77767
    assert session.title == "Fix formatDuration minute rollover bug"  # meta.json's title
    assert session.status == "completed" and session.cwd == "/home/dev/code/timefmt"
    assert session.models == ["anthropic/claude-sonnet-5"]
    assert session.source == "1789374063402-48211-1k2x9fq"
    assert [s.kind for s in session.steps] == ["user", "event"] + ["assistant"] * 6 + ["event"]
    assert session.problems == []
    # Out-of-order results pair by id: the grep call gets the grep output.
    parallel = session.steps[2]
    assert [c.name for c in parallel.tool_calls] == ["read_file", "read_file", "grep"]
    assert parallel.tool_calls[2].output.startswith("./lib/timefmt.dart:3:")
    assert parallel.tool_calls[0].output.startswith("/// Formats a [Duration]")
    assert "test('formats seconds'" in parallel.tool_calls[1].output
    assert parallel.usage == Usage(input=3118, output=187, cache_write_5m=9874)
    failed_edit = session.steps[3].tool_calls[0]
    assert failed_edit.is_error and failed_edit.output.startswith("Error: old_string not found")
    (change,) = session.steps[4].tool_calls[0].changes
    assert change.path == "lib/src/duration_format.dart" and change.kind == "modify"
    assert "-  final minutes = d.inMinutes;\n" in change.diff
    assert "+  final minutes = d.inMinutes.remainder(60);\n" in change.diff
    bash_ok, bash_failed = session.steps[5].tool_calls[0], session.steps[6].tool_calls[0]
    assert (bash_ok.is_error, bash_ok.exit_code, bash_ok.code) == (False, 0, "dart test test/duration_format_test.dart")
    assert (bash_failed.is_error, bash_failed.exit_code) == (True, 2)
    final = session.steps[7]
    assert final.text.startswith("Fixed.") and final.usage.input == 288
    assert session.first_error_step == 4
    assert_numbered(session)


def test_constructed_subagent(corpus):
    """1790946341220: 40 rows, one subagent.

    Parent steps: 1 user r1; 2 title event r2+r3; 3 assistant r4 r5 (spawn_subagent) r6 usage,
    result r29; 4 r30 r31 (bash) r32, denied r33 (success false); 5 usage r34 + text r35;
    6 title usage r36 (no title row follows); 7 user r37; 8 agent_notice r38; 9 usage r39 + text r40.
    = 9 steps, 2 calls, none failed: the bash was denied by the user, a refusal, not an error.
    Parent tokens: main r6 r32 r34 r39 input 4210+1620+318+2911 = 9059, output 96+170+301+71 = 638,
    cache_read 2048+4096+5888 = 12032, reasoning 64+40+128 = 232; title r2 r36: input 164+702 = 866,
    output 8+9 = 17. Parent total 9925+655+12032 = 22612.
    Child (subagent_event r8-r25): 1 user (the task); 2 r8 r10 (grep) r11 usage; 3 r13 r15 (bash)
    r16, denied r17; 4 r18 r20 (read_file) r21; 5 r23 r24 = 5 steps, 3 calls, none failed (1 declined).
    Child tokens from inner usage r11 r16 r21 r24: input 3890+612+301+1018 = 5821,
    output 41+66+38+143 = 288, cache_read 0+3840+4352+4608 = 12800 (= subagent_usage r26 and
    usage role subagent r27, which are therefore not counted again). 22612 + 18909 = 41521 =
    meta.json token_count.
    """
    session = read_one(corpus / "glue" / "constructed" / "1790946341220-77310-3q8w0zd")
    assert figures(session) == (9, 2, 0, 0) and session.declined_calls == 1
    assert session.usage == Usage(input=9925, output=655, cache_read=12032, reasoning=232)
    assert session.usage.total == 22612
    assert session.usage_with_children.total == 41521
    assert session.problems == []
    (child,) = session.children
    assert child.id == "1790946341220-77310-3q8w0zd:sub:sub-mj4k2w9s1c-0x7qv3a"
    assert (child.parent_id, child.relation, child.status) == (session.id, "subagent", "completed")
    assert child.source == session.source
    assert figures(child) == (5, 3, 0, 0) and child.declined_calls == 1
    assert child.usage == Usage(input=5821, output=288, cache_read=12800)
    assert child.steps[0].kind == "user" and child.steps[0].text.startswith("Find every construction")
    assert child.steps[2].tool_calls[0].output == "User denied tool execution"
    spawn_step = session.steps[2]
    assert spawn_step.child_session_ids == [child.id]
    assert spawn_step.tool_calls[0].child_session_id == child.id
    assert session.steps[3].tool_calls[0].is_error  # denied by the user: failed
    notice = session.steps[7]
    assert (notice.kind, notice.title) == ("event", "Notice (warning)")
    assert session.steps[8].model == "ollama/gemma3:4b"
    assert set(session.models) == {"ollama/gemma3:4b", "openai/gpt-5.5"}
    assert_numbered(session)


def test_constructed_legacy_local_time(corpus):
    """1772232065887-8t: 12 legacy rows, meta schema 1 (model + provider, no termination_status).

    Steps: 1 user r1; 2 assistant r2 r3 (two calls without id, never answered) r4 text;
    3 title event r5; 4 user r6; 5 r7 text + r8 edit_file, result r9 (no success/status);
    6 r10 bash, result r11 ("Exit code: 0"); 7 r12 text = 7 steps, 4 calls, 0 failed, no usage rows.
    Rows r1-r4 are local time without Z; meta start_time 22:41:05.887Z vs r1 23:41:07 gives UTC+1.
    """
    session = read_one(corpus / "glue" / "constructed" / "1772232065887-8t")
    assert figures(session) == (7, 4, 0, 0)
    assert session.usage.total == 0
    assert session.models == ["anthropic/claude-sonnet-4-6"]
    assert session.status == "completed"  # end_time present, as SessionMeta.fromJson derives it
    assert session.steps[0].timestamp.isoformat() == "2026-02-27T22:41:07.103317+00:00"
    assert all(step.timestamp.tzinfo is not None for step in session.steps)
    assert [c.missing_result for c in session.steps[1].tool_calls] == [True, True]
    assert session.steps[5].tool_calls[0].exit_code == 0
    assert [p.kind for p in session.problems] == ["warning"]
    assert "UTC offset 1:00:00" in session.problems[0].message


def test_docs_examples(corpus):
    """Both docs examples: user r1; assistant r2 text + r3 read call, answered r4; title event r5.
    The mixed one has meta.json (model + provider, its own title); the legacy one has none,
    so its title comes from title_generated and its id from the folder name."""
    mixed = read_one(corpus / "glue" / "docs-example-mixed-v1-and-legacy")
    legacy = read_one(corpus / "glue" / "docs-example-legacy")
    for session in (mixed, legacy):
        assert figures(session) == (3, 1, 0, 0)
        assert session.steps[1].tool_calls[0].output == "…"
    assert (mixed.id, mixed.title, mixed.models) == ("1740654600000-abc", "Fix flaky shell test", ["anthropic/claude-sonnet-4-6"])
    assert any(f.label == "Forked from" and f.value == "1740650000000-xyz" for f in mixed.facts)
    assert (legacy.id, legacy.title, legacy.status) == ("docs-example-legacy", "HTTP client retry logic walkthrough", None)


# --- tests/data/glue ---------------------------------------------------------------


def test_example_v1_session(data):
    """tests/data/glue/1791000000000-4242-ex1: 33 rows + a torn line 34.

    Steps: 1 user; 2 title event (r2 usage 120+7, r3); 3 thinking + text + read_file + bash (r4-r8),
    results out of order r9 (bash exit 1) r10; 4 edit_file with metadata.diff (r11-r14);
    5 spawn_subagent (r15-r16), subagent r17-r28, result r29; 6 agent_notice r30;
    7 usage r31 + final text r32; 8 stub for the unknown checkpoint_saved r33 = 8 steps,
    4 calls, 1 failed. Parent tokens: main 3080+2790+2640+3010 = 11520, title 127 -> 11647;
    subagent inner usage 560+620 = 1180; 12827 in all = meta.json token_count.
    """
    session = read_one(data / "glue" / "1791000000000-4242-ex1", data / "glue")
    assert figures(session) == (8, 4, 1, 1)
    assert session.usage == Usage(input=1770, output=277, cache_read=7200, cache_write_5m=2400)
    assert session.usage_with_children.total == 12827
    assert (session.git_branch, session.status, session.agent_version) == ("fix/slug-dashes", "interrupted", "0.9.0")
    assert session.git_commit.startswith("3f2a9c1d")
    step = session.steps[2]
    assert step.thinking.startswith("Read the helper") and step.text.startswith("Reading the helper")
    read, bash = step.tool_calls
    assert read.output.startswith("import re") and not read.is_error
    assert (bash.is_error, bash.exit_code, bash.duration_s, bash.language) == (True, 1, 1.1, "bash")
    (change,) = session.steps[3].tool_calls[0].changes
    assert change.path == "lib/slug.py" and "+    return re.sub(r'[^a-z0-9]+', '-', text.lower()).strip('-')\n" in change.diff
    (child,) = session.children
    assert session.steps[4].child_session_ids == [child.id] == [f"{session.id}:sub:sub-ex1-0a"]
    assert figures(child) == (3, 1, 0, 0) and child.usage.total == 1180
    stub = session.steps[7]
    assert (stub.kind, stub.title) == ("event", "Unknown event: checkpoint_saved")
    assert '"label": "after-fix"' in stub.details[0].text
    assert [str(p) for p in session.problems] == [
        "1791000000000-4242-ex1/conversation.jsonl:34: truncated line, skipped",
        "1791000000000-4242-ex1/conversation.jsonl:33: unknown event type 'checkpoint_saved', kept as a stub step",
    ]
    assert_numbered(session)


def test_example_legacy_bare_file(data):
    """tests/data/glue/legacy-mixed.jsonl: 13 lines, line 4 is a JSON list (skipped).

    Steps: 1 user; 2 grep (no id, unanswered) + text; 3 title event; 4 user; 5 text + bash
    `rm -r build` ("Exit code: 1", no success/status: failed); 6 v1 bash ls (success) plus the
    orphan result "Error: no such call" (failed) that follows it; 7 text = 7 steps, 3 calls (the
    orphan result is shown, not counted as a call), 2 failed (the orphan's error still counts).
    """
    session = read_one(data / "glue" / "legacy-mixed.jsonl", data / "glue")
    assert figures(session) == (7, 3, 2, 2)
    assert (session.id, session.title, session.source) == ("legacy-mixed", "TODO comments in src", "legacy-mixed.jsonl")
    rm = session.steps[4].tool_calls[0]
    assert (rm.is_error, rm.exit_code) == (True, 1)
    ls, ghost = session.steps[5].tool_calls
    assert (ls.is_error, ls.exit_code, ghost.orphan, ghost.is_error) == (False, 0, True, True)
    assert [str(p) for p in session.problems[:2]] == [
        "legacy-mixed.jsonl:4: not a JSON object (list), skipped",
        "legacy-mixed.jsonl:12: tool_result for unknown call id 'toolu_ghost'",
    ]
    # No meta.json to anchor the local-time rows: read as UTC, and said so.
    assert "as UTC (offset unknown)" in session.problems[2].message


def test_folder_without_meta_and_bad_line(tmp_path, corpus):
    folder = tmp_path / "sessions" / "1789374063402-48211-1k2x9fq"
    folder.mkdir(parents=True)
    original = (corpus / "glue" / "constructed" / folder.name / "conversation.jsonl").read_bytes().splitlines(True)
    original[5] = b'{"schema_version":1,"type":"tool_call", broken}\n'  # row 6: a read_file call
    (folder / "conversation.jsonl").write_bytes(b"".join(original))
    (source,) = find_sources(tmp_path / "sessions", [READER], [])
    (session,) = READER.read(source)
    assert session.id == "1789374063402-48211-1k2x9fq"  # from the rows' session_id
    assert session.title == "Fix formatDuration minute rollover bug"  # latest title row
    assert session.status is None and session.declared_models == []
    # One call fewer; its result (row 11) becomes an orphan, shown but not counted as a call: 6.
    assert figures(session) == (9, 6, 2, 2)
    assert str(session.problems[0]).startswith("1789374063402-48211-1k2x9fq/conversation.jsonl:6: invalid JSON")
    assert any("toolu_01RkY5aJ8uLw2eGn6pVx4QmB" in p.message for p in session.problems)


def test_meta_only_folder_and_empty(tmp_path):
    folder = tmp_path / "s1"
    folder.mkdir()
    (folder / "meta.json").write_text(
        '{"schema_version":2,"id":"s1","cwd":"/x","model":"gpt-5","provider":"openai","start_time":"2026-01-01T00:00:00Z","token_count":5}'
    )
    (source,) = find_sources(tmp_path, [READER], [])  # claimed through meta.json alone
    (session,) = READER.read(source)
    # Schema 2: provider/model joined; no termination_status and no end_time -> running.
    assert (session.id, session.steps, session.models, session.status) == ("s1", [], ["openai/gpt-5"], "running")
    assert [str(p) for p in session.problems] == ["s1/meta.json: token_count 5 differs from the 0 tokens of the usage rows"]
    # The page says it too: 5 recorded, 0 counted.
    assert next(f.value for f in session.facts if f.label == "Tokens (meta.json)") == (
        "5: 5 more than the 0 counted here with subagents (calls whose usage rows are not in this log)")


def test_result_verdicts():
    def verdict(**row) -> tuple[bool, int | None]:
        call = ToolCall("bash")
        apply_result(call, row)
        return call.is_error, call.exit_code

    assert verdict(content="ok", success=True, status="completed") == (False, None)
    assert verdict(content="x", status="denied") == (True, None)
    assert verdict(content="User denied tool execution") == (True, None)
    assert verdict(content="Tool error: boom") == (True, None)
    assert verdict(content="out\n\nExit code: 3\n") == (True, 3)
    assert verdict(content="out", metadata={"exit_code": 0}) == (False, 0)
    new_file = ToolCall("write_file")
    apply_result(new_file, {"content": "Wrote a.txt", "success": True, "metadata": {
        "is_new_file": True, "diff": {"path": "a.txt", "old_text": "", "new_text": "hi\n"}}})
    assert [(c.path, c.kind, c.diff) for c in new_file.changes] == [("a.txt", "add", "@@ -0,0 +1 @@\n+hi\n")]


def test_parallel_nested_and_failed_subagents(tmp_path):
    """One spawn_parallel call fans out to subagents a and b; b spawns c; b fails; c has only
    the aggregate `subagent_usage` (no inner usage rows), counted once as a total step."""
    ts = "2026-05-01T10:00:00Z"
    rows = [
        {"type": "user_message", "text": "go"},
        {"type": "tool_call", "id": "p1", "name": "spawn_parallel_subagents", "arguments": {"tasks": ["A", "B"]}},
        {"type": "usage", "role": "main", "input_tokens": 10, "output_tokens": 1, "turn_count": 1},
        {"type": "subagent_spawned", "subagent_id": "a", "task": "A", "depth": 0, "index": 0, "total": 2},
        {"type": "subagent_spawned", "subagent_id": "b", "task": "B", "depth": 0, "index": 1, "total": 2},
        {"type": "subagent_event", "subagent_id": "a", "inner": {"type": "assistant_message", "text": "done A"}},
        {"type": "subagent_event", "subagent_id": "a", "inner": {"type": "usage", "input_tokens": 5, "output_tokens": 2}},
        {"type": "subagent_event", "subagent_id": "b", "inner": {"type": "tool_call", "id": "s1", "name": "spawn_subagent", "arguments": {"task": "C"}}},
        {"type": "subagent_spawned", "subagent_id": "c", "parent_subagent_id": "b", "task": "C", "depth": 1},
        {"type": "subagent_usage", "subagent_id": "c", "input_tokens": 7, "output_tokens": 3, "turn_count": 1},
        {"type": "subagent_completed", "subagent_id": "c", "status": "completed"},
        {"type": "subagent_event", "subagent_id": "b", "inner": {"type": "tool_result", "call_id": "s1", "success": True, "content": "C done"}},
        {"type": "subagent_event", "subagent_id": "b", "inner": {"type": "agent_error", "error": "rate limited"}},
        {"type": "subagent_event", "subagent_id": "b", "inner": {"type": "mystery"}},
        {"type": "subagent_completed", "subagent_id": "b", "status": "failed", "error": "gave up"},
        {"type": "tool_result", "call_id": "p1", "content": "done A\n---\ngave up", "success": True},
    ]
    path = tmp_path / "fan.jsonl"
    path.write_bytes(b"".join(orjson.dumps({"timestamp": ts, **row}) + b"\n" for row in rows))
    (session,) = READER.read(SessionSource("glue", path, tmp_path))
    a, b = session.children
    (c,) = b.children
    assert [x.id for x in (a, b, c)] == ["fan:sub:a", "fan:sub:b", "fan:sub:c"]
    assert (a.parent_id, b.parent_id, c.parent_id) == ("fan", "fan", "fan:sub:b")
    spawn = session.steps[1]
    assert spawn.child_session_ids == [a.id, b.id] and spawn.tool_calls[0].child_session_id == a.id
    assert b.steps[1].child_session_ids == [c.id] and b.steps[1].tool_calls[0].child_session_id == c.id
    # b: user, the spawning step, agent_error, the unknown stub, "Subagent failed" = 2 errors.
    assert [s.title for s in b.steps] == [None, None, "Agent error", "Unknown event: mystery", "Subagent failed"]
    assert (b.status, b.error_count) == ("failed", 2)
    assert [p.kind for p in b.problems] == ["unknown_event"] and b.problems[0].line == 14
    assert c.steps[-1].title == "Subagent usage (total)" and c.usage == Usage(input=7, output=3)
    # 11 (main) + 7 (a, inner) + 10 (c, aggregate) = 28.
    assert session.usage_with_children.total == 28


def test_fork_leaves_copied_history_out_and_legacy_edit_gets_a_diff(data):
    # 1791000500000-5151-fork: lines 1-4 are ex1's rows (its session_id) copied by the fork:
    # a prompt, a read_file call with its result, and a usage row of 1000 in / 80 out / 2000
    # cache write. They become one collapsed "Copied from" step and count nothing here.
    [source] = find_sources(data / "glue/1791000500000-5151-fork", [READER], [])
    [session] = READER.read(source)
    copied = session.steps[0]
    assert (copied.kind, copied.title, copied.collapsed) == ("event", "Copied from 1791000000000-4242-ex1", True)
    assert "- The `slugify` helper keeps trailing dashes. Fix it and add a test." in copied.text
    # Own figures: usage rows 1200/60 and 60/30 -> 1,260 in, 90 out; one tool call (the edit).
    u = session.usage
    assert (u.input, u.output, u.cache_write_5m, session.tool_calls) == (1260, 90, 0, 1)
    # meta.json token_count 1,350 = 1,260 + 90: equal, and the page says so.
    assert next(f.value for f in session.facts if f.label == "Tokens (meta.json)") == (
        "1,350 (equal to the tokens counted here with subagents)")
    assert session.problems == []
    # The legacy edit_file result has no metadata.diff: the diff comes from old/new_string,
    # with no invented line numbers.
    [change] = session.steps[2].tool_calls[0].changes
    assert (change.path, change.kind) == ("lib/slug.py", "modify")
    assert change.diff.splitlines() == [
        "@@ line numbers unknown @@",
        "-    return re.sub(r'[^a-z0-9]+', '-', text.lower())",
        "+    return re.sub(r'[^a-z0-9]+', '-', text.lower()).strip('-')",
    ]
