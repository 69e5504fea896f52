"""The Claude Code reader against the real corpus (figures worked out by hand) and the example sessions.

How the corpus figures below were worked out, from the raw lines only (no reader code):

    python3 -c "import json,sys; rows=[o for o in map(json.loads, open(sys.argv[1])) if isinstance(o, dict)]; ..."

(the full throwaway script is spelled out in the comment above CORPUS) with these rules:
- steps = distinct `message.id` over assistant lines (one API response split over several lines is
  one step) + user lines whose content is a string or has any block that is not a tool_result
  + system lines other than `turn_duration` (file-history-snapshot, queue-operation, summary,
  turn_duration are not steps);
- tool calls = number of `tool_use` blocks;
- errors = tool_result blocks with `is_error: true` (or a line's single toolUseResult string
  starting "Error") + assistant lines with `isApiErrorMessage: true`;
- tokens: group assistant lines by `message.id`, keep ONE usage per id (the last line's input /
  cache fields, the max output_tokens), then sum input_tokens, output_tokens,
  cache_read_input_tokens, cache_creation_input_tokens. The "naive" column sums every line instead,
  which is the double counting of ccusage issue #994.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay_site.discover import find_sources
from replay_site.model import Usage
from replay_site.readers import SessionSource, registry
from replay_site.readers.claude.reader import READER
from replay_site.readers.claude.steps import ABANDONED_TITLE

# The throwaway script behind these numbers:
#   for each line: m = o["message"]
#   assistant: key = m.get("id") or o["uuid"]; vals = [input, output, cache_read, cache_creation]
#              if key seen: vals[1] = max(vals[1], seen[key][1]) else steps += 1; seen[key] = vals
#              calls += count of tool_use blocks; errors += isApiErrorMessage
#   user:      steps += 1 if any block is a str or not a tool_result;
#              errors += tool_result blocks with is_error true (or toolUseResult string "Error...")
#   system:    steps += 1 unless subtype == "turn_duration"
#   tokens = column sums over seen.values()
# path relative to corpus/claude: (steps, tool calls, errors, (input, output, cache read, cache write))
CORPUS = {
    "claude-code-log/edge_cases.jsonl": (11, 3, 1, (488, 435, 0, 0)),
    "claude-code-log/representative_messages.jsonl": (9, 2, 0, (218, 445, 0, 0)),
    "claude-code-log/session_b.jsonl": (3, 0, 0, (20, 35, 0, 0)),
    "claude-code-log/todowrite_examples.jsonl": (8, 3, 0, (883, 328, 0, 0)),
    "codemie/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl": (10, 6, 0, (33, 806, 214627, 37172)),
    "codemie/-tmp-private/agent-36541525.jsonl": (2, 0, 0, (3, 3, 0, 16976)),
    "codemie/-tmp-private/agent-50243ee8.jsonl": (2, 0, 0, (16878, 237, 0, 0)),
    "codemie/incremental-subagents/turn-1.jsonl": (8, 7, 0, (82, 1244, 154285, 61416)),
    "codemie/incremental-subagents/turn-1/subagents/agent-a485154.jsonl": (7, 20, 1, (5233, 1845, 91980, 115531)),
    "codemie/session-196820da.jsonl": (63, 65, 2, (6711, 65263, 2560506, 1473882)),
    "codemie/session-9eda1058.jsonl": (9, 3, 0, (47, 4509, 22912, 147267)),
}


def _figures(session):
    u = session.usage
    return len(session.steps), session.tool_calls, session.error_count, (u.input, u.output, u.cache_read, u.cache_write)


def _read_all(root: Path):
    """Every session (children included) under root, by source path."""
    found = {}
    for source in find_sources(root, [READER], []):
        for session in READER.read(source):
            for each in session.walk():
                found[each.source] = each
    return found


def test_registered():
    assert registry()["claude"] is READER


def test_corpus_figures_match_hand_counts(corpus):
    sessions = _read_all(corpus / "claude")
    assert set(sessions) == set(CORPUS)
    for rel, expected in CORPUS.items():
        assert _figures(sessions[rel]) == expected, rel
        # No corpus file has a rewind: nothing may be hidden as an abandoned branch (the parallel
        # tool results of agent-a485154 hang off different lines of one response: not a fork).
        assert not any((step.title or "").startswith(ABANDONED_TITLE) for step in sessions[rel].steps), rel


def test_corpus_problems_are_explained(corpus):
    sessions = _read_all(corpus / "claude")
    # 196820da: `grep -c '"type":"file-history-snapshot"'` = 15, `grep -c '"type":"queue-operation"'` = 4:
    # routine bookkeeping, counted as not shown, never a warning.
    clean = sessions["codemie/session-196820da.jsonl"]
    assert clean.problems == []
    assert clean.records["not_shown"] == {"file-history-snapshot": 15, "queue-operation": 4}
    # edge_cases: lines 13, 15, 16 are JSON but not objects; 14 is {"silly": "this"} (no type);
    # line 10 has "contenst" instead of "content", line 11 has "message": "error".
    edge = [str(p) for p in sessions["claude-code-log/edge_cases.jsonl"].problems]
    assert [p.split(": ")[0] for p in edge] == [
        "claude-code-log/edge_cases.jsonl:13", "claude-code-log/edge_cases.jsonl:15", "claude-code-log/edge_cases.jsonl:16",
        "claude-code-log/edge_cases.jsonl", "claude-code-log/edge_cases.jsonl:10", "claude-code-log/edge_cases.jsonl:11",
    ]


def test_split_message_counted_once_on_real_lines(corpus, tmp_path):
    """Lines 7-9 of session-196820da are ONE response (msg_..HJGLwskb: thinking, text, TodoWrite),
    each repeating usage {input 10, cache_creation 27934, output 3 / 3 / 623}."""
    lines = (corpus / "claude/codemie/session-196820da.jsonl").read_text().splitlines()[6:9]
    usages = [json.loads(line)["message"]["usage"] for line in lines]
    assert len({json.loads(line)["message"]["id"] for line in lines}) == 1
    naive = sum(u["input_tokens"] for u in usages), sum(u["output_tokens"] for u in usages), sum(u["cache_creation_input_tokens"] for u in usages)
    assert naive == (30, 629, 83802)  # what a per-line sum reports: 3x the input and cache write
    path = tmp_path / "split.jsonl"
    path.write_text("\n".join(lines) + "\n")
    [session] = READER.read(SessionSource("claude", path, tmp_path))
    [step] = session.steps
    assert (step.usage.input, step.usage.output, step.usage.cache_write_5m) == (10, 623, 27934)
    assert step.thinking and step.text and [call.name for call in step.tool_calls] == ["TodoWrite"]
    # Over the whole file (table above): naive per-line sums would be input 14843, output 65479,
    # cache read 7102799, cache write 3974296 against the true 6711 / 65263 / 2560506 / 1473882.
    whole = _read_all(corpus / "claude")["codemie/session-196820da.jsonl"].usage
    assert (whole.input, whole.output, whole.cache_read, whole.cache_write) == (6711, 65263, 2560506, 1473882)


def test_subagent_new_layout_linked_and_counted_once(corpus):
    [source] = [s for s in find_sources(corpus / "claude/codemie/incremental-subagents", [READER], [])]
    assert [p.name for p in source.related] == ["agent-a485154.jsonl"]
    [parent] = READER.read(source)
    [child] = parent.children
    assert child.parent_id == parent.id and child.relation == "subagent"
    assert child.source == "turn-1/subagents/agent-a485154.jsonl"
    task = next(call for step in parent.steps for call in step.tool_calls if call.name == "Task")
    assert task.child_session_id == child.id  # via toolUseResult.agentId "a485154"
    assert child.title == "Analyze CLI and spec new commands"  # the Task's description
    # The Task result repeats the child's last usage (7/1/39048/18688): it must not reach the parent.
    assert parent.usage == Usage(82, 1244, 154285, 61416)
    assert parent.usage_with_children == parent.usage + Usage(5233, 1845, 91980, 115531)


def test_subagents_old_layout_grouped_with_parent(corpus):
    sources = list(find_sources(corpus / "claude/codemie/-tmp-private", [READER], []))
    assert len(sources) == 1  # the two agent-*.jsonl files share the main file's sessionId
    [parent] = READER.read(sources[0])
    assert sorted(child.source for child in parent.children) == ["agent-36541525.jsonl", "agent-50243ee8.jsonl"]
    assert all(child.parent_id == parent.id for child in parent.children)
    assert len({parent.id, *(child.id for child in parent.children)}) == 3
    # Warmup agents: no Task call spawned them, so nothing links to them, but they are still counted once.
    assert parent.usage_with_children == Usage(33, 806, 214627, 37172) + Usage(3, 3, 0, 16976) + Usage(16878, 237, 0, 0)


def test_find_roots(corpus, data):
    claude = corpus / "claude"
    assert len(list(find_sources(claude, [READER], []))) == 8  # 11 files, 3 of them subagents grouped with their parents
    [single] = find_sources(claude / "codemie/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl", [READER], [])
    assert len(single.related) == 2
    [agent] = find_sources(claude / "codemie/-tmp-private/agent-50243ee8.jsonl", [READER], [])
    assert agent.related == () and READER.read(agent)[0].parent_id is None
    for other in ("codex", "gptme", "glue", "rlm"):
        if (corpus / other).is_dir():
            assert list(find_sources(corpus / other, [READER], [])) == [], other
    if data.joinpath("claude").is_dir():
        for other in data.iterdir():
            if other.name != "claude":
                assert list(find_sources(other, [READER], [])) == [], other


def test_default_dirs(monkeypatch, tmp_path):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    assert READER.default_dirs()[0] == tmp_path / "projects"
    assert READER.default_dirs()[-1] == Path.home() / ".claude" / "projects"


# -- the hand-written example sessions -----------------------------------------------------------

CALC = "claude/-home-dev-calc-demo"
CALC_ID = "5b1e7c2a-3f4d-4e6a-9b8c-0d1e2f3a4b5c"


@pytest.fixture
def calc(data):
    [source] = find_sources(data / CALC, [READER], [])
    [session] = READER.read(source)
    return session


def test_example_calc_steps(calc):
    assert calc.id == CALC_ID and calc.title == "Fix calc.add sign bug"  # summary whose leafUuid is its last message
    assert calc.project == "-home-dev-calc-demo" and calc.cwd == "/home/dev/calc-demo" and calc.agent_version == "2.0.31"
    assert [(s.kind, s.title) for s in calc.steps] == [
        ("context", "Injected context"),
        ("user", "Slash command /model"),
        ("context", "Slash command output"),
        ("user", None),
        ("assistant", None),  # thinking + text + TodoWrite: three lines, one response
        ("assistant", None),  # Bash, exit 1
        ("assistant", None),  # Read
        ("assistant", None),  # Edit
        ("assistant", None),  # Write
        ("assistant", None),  # text + Task
        ("event", "Conversation compacted (manual, 15,800 tokens before)"),
        ("context", "Summary of the compacted conversation"),
        ("user", None),  # with an image
        ("assistant", None),  # isApiErrorMessage
        ("user", None),
        ("assistant", None),  # redacted thinking + text
    ]
    assert [s.number for s in calc.steps] == list(range(1, 17))
    first = calc.steps[4]
    assert first.thinking == "Look at the test first, then calc.py." and first.text == "I'll plan this, then look at the code."
    assert [(t.text, t.status) for t in first.tool_calls[0].todos] == [("Run the failing test", "in_progress"), ("Fix calc.add", "pending")]
    assert calc.steps[12].images[0].media_type == "image/png"
    assert calc.steps[15].thinking.startswith("[redacted thinking")


def test_example_calc_tools(calc):
    bash, read, edit, write, task = (calc.steps[i].tool_calls[0] for i in (5, 6, 7, 8, 9))
    assert (bash.is_error, bash.exit_code, bash.code, bash.language) == (True, 1, "python -m pytest -q", "bash")
    assert read.output.splitlines()[1] == "     2→    return a - b" and read.arguments["file_path"].endswith("calc.py")
    [change] = edit.changes
    assert (change.kind, change.path) == ("modify", "/home/dev/calc-demo/calc.py")
    assert change.diff.splitlines()[:3] == ["@@ -1,4 +1,4 @@", " def add(a, b):", "-    return a - b"]
    assert [(c.kind, c.path) for c in write.changes] == [("add", "/home/dev/calc-demo/NOTES.md")]
    assert task.duration_s == 17.5


def test_example_calc_figures(calc):
    # Responses 1..7 (by message.id; the API error has zero usage), last line's usage each:
    # input 3+5+5+5+5+5+8 = 36; output 180+60+50+90+70+120+25 = 595 (the streamed 4s not added);
    # cache read 0+4000+4300+4800+5200+5400+0 = 23700; 5m writes 300+500+400+200+150+6000 = 7550;
    # 1h writes 4000 (the first response's cache_creation.ephemeral_1h_input_tokens).
    assert calc.usage == Usage(36, 595, 23700, 7550, 4000)
    assert calc.tool_calls == 6 and calc.failed_tool_calls == 1
    assert calc.error_count == 2 and calc.steps[13].error.startswith("API Error: 529")  # Bash + API error
    assert calc.first_error_step == 6
    # Routine bookkeeping is counted, not warned about: the torn line is the one problem.
    assert [str(p).split(": ", 1)[1] for p in calc.problems] == ["truncated line, skipped"]  # line 30 is torn
    # The file's 30 lines by `type`, the torn line 30 left out (it is a problem, not a record).
    assert calc.records == {
        "shown": {"user": 13, "assistant": 12, "system": 1, "summary": 1},
        "not_shown": {"file-history-snapshot": 1, "queue-operation": 1},
        "unknown": {},
    }
    [child] = calc.children
    assert child.id == f"{CALC_ID}-agent-7c3d9e1" and child.parent_id == CALC_ID
    assert calc.steps[9].tool_calls[0].child_session_id == child.id and calc.steps[9].child_session_ids == [child.id]
    # The child's own two responses; the Task result's repeated usage (4/40/3100) is not counted.
    assert child.usage == Usage(18, 85, 2500, 2620)
    assert calc.usage_with_children == calc.usage + child.usage


def test_example_rewind_costs_and_old_layout(data):
    sources = {s.path.name: s for s in find_sources(data / "claude/-home-dev-notebooks", [READER], [])}
    assert set(sources) == {"c4d5e6f7-1a2b-4c3d-8e9f-a0b1c2d3e4f5.jsonl", "agent-0ddba11.jsonl"}
    [session] = READER.read(sources["c4d5e6f7-1a2b-4c3d-8e9f-a0b1c2d3e4f5.jsonl"])
    assert session.title == "Rename qty column"  # custom-title; no summary names this session
    rewound = [s for s in session.steps if s.collapsed and (s.title or "").startswith(ABANDONED_TITLE)]
    assert [s.kind for s in rewound] == ["user", "assistant"]  # kept, folded, not dropped
    # costUSD from the log on every response (0.0215+0.0312+0.0401+0.0098), the child's 0.0042 on its own.
    assert session.cost.usd == pytest.approx(0.1026) and session.cost.source == "log"
    assert session.cost_with_children.usd == pytest.approx(0.1068)
    multi, notebook = next(s for s in session.steps if len(s.tool_calls) == 2).tool_calls
    assert [c.diff for c in multi.changes] == ["@@ -1 +1 @@\n-df['qty']\n+df['quantity']\n", "@@ -1 +1 @@\n-def total(qty, price):\n+def total(quantity, price):\n"]
    assert notebook.changes[0].path == "/home/dev/notebooks/analysis.ipynb"
    [child] = session.children
    task = next(c for s in session.steps for c in s.tool_calls if c.name == "Task")
    assert task.child_session_id == child.id  # no agentId in this old result: matched by the prompt
    assert child.title == "Find uses of qty"
    assert session.steps[-1].title == "Unrecognised line: tag-cloud" and session.steps[-1].details
    assert any(p.kind == "unknown_event" and "'tag-cloud'" in p.message for p in session.problems)
    [orphan] = READER.read(sources["agent-0ddba11.jsonl"])
    assert orphan.parent_id is None and orphan.id.endswith("-agent-0ddba11") and len(orphan.steps) == 2


def test_inline_sidechain_lines_become_a_child(tmp_path):
    """Old versions wrote a subagent's lines (isSidechain: true) into the main file itself."""
    def line(uuid, parent, kind, sidechain, content, **extra):
        message = {"role": kind, "content": content}
        if kind == "assistant":
            message.update(id=f"msg_{uuid}", model="claude-3-5-sonnet-20241022", usage={"input_tokens": 10, "output_tokens": 5})
        return json.dumps({"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": sidechain, "sessionId": "s1",
                           "timestamp": "2025-03-01T10:00:00Z", "message": message, **extra})
    path = tmp_path / "s1.jsonl"
    path.write_text("\n".join([
        line("u1", None, "user", False, "Count the files."),
        line("a1", "u1", "assistant", False, [{"type": "tool_use", "id": "t1", "name": "Task", "input": {"description": "count", "prompt": "Count files in src."}}]),
        line("s1", None, "user", True, "Count files in src."),
        line("s2", "s1", "assistant", True, [{"type": "text", "text": "12 files."}]),
        line("u2", "a1", "user", False, [{"type": "tool_result", "tool_use_id": "t1", "content": "12 files."}]),
        line("a2", "u2", "assistant", False, [{"type": "text", "text": "There are 12."}]),
    ]) + "\n")
    [session] = READER.read(SessionSource("claude", path, tmp_path))
    assert [s.kind for s in session.steps] == ["user", "assistant", "assistant"]
    [child] = session.children
    assert [s.text for s in child.steps] == ["Count files in src.", "12 files."]
    assert session.steps[1].tool_calls[0].child_session_id == child.id  # matched by the prompt
    assert session.usage == Usage(20, 10) and session.usage_with_children == Usage(30, 15)


def test_turn_durations_are_shown_not_dropped(corpus):
    # session-9eda1058.jsonl has two `system` turn_duration lines: durationMs 162419 and 218767.
    session = _read_all(corpus / "claude" / "codemie")["session-9eda1058.jsonl"]
    assert [(f.label, f.value) for f in session.facts if f.label == "Turn durations"] == [("Turn durations", "162.4s, 218.8s")]
    assert not [p for p in session.problems if "turn_duration" in p.message]


def test_warmup_agent_of_a_resumed_process_is_linked_to_its_main_session(data):
    # agent-5a11e7.jsonl: its first line carries the resumed process's sessionId (d2…0b, which
    # has a main file of its own), its second line the main session's (d1…0a). The agent goes
    # with the session its lines name last, once: no top-level "Warmup" session.
    folder = data / "claude/-home-dev-resumed"
    sources = {s.path.name: s for s in find_sources(folder, [READER], [])}
    assert sorted(sources) == ["d1000000-0000-4000-8000-00000000000a.jsonl", "d2000000-0000-4000-8000-00000000000b.jsonl"]
    assert [p.name for p in sources["d1000000-0000-4000-8000-00000000000a.jsonl"].related] == ["agent-5a11e7.jsonl"]
    assert sources["d2000000-0000-4000-8000-00000000000b.jsonl"].related == ()
    [main] = READER.read(sources["d1000000-0000-4000-8000-00000000000a.jsonl"])
    [warmup] = main.children
    assert (warmup.parent_id, warmup.relation) == (main.id, "subagent")
    # Rolled up once: the main's 10 in / 20 out plus the warmup's 900 in / 3 out.
    assert (main.usage_with_children.input, main.usage_with_children.output) == (910, 23)


def test_diff_lines_starting_with_dashes_inside_a_hunk_are_changes():
    # Removing a YAML front-matter line "---" and adding "+++ b" inside one hunk: by the hunk's
    # counts (-1,3 +1,3) they are a removal and an addition, not file headers. Before the first
    # hunk, "--- a/x" / "+++ b/x" are headers.
    from replay_site.diffs import diff_view
    from replay_site.model import FileChange

    def kinds(diff: str) -> list[str]:
        return [row.kind for row in diff_view(FileChange("notes.md", diff=diff)).rows]

    diff = "--- a/notes.md\n+++ b/notes.md\n@@ -1,3 +1,3 @@\n----\n++++ b\n title\n-end\n+fin\n\\ No newline at end of file\n"
    # ("\ No newline at end of file" is a note row, numbered like a header: "file")
    assert kinds(diff) == ["file", "file", "hunk", "del", "add", "ctx", "del", "add", "file"]
    # A header without counts (legacy Glue edits) keeps every following line in the hunk.
    assert kinds("@@ line numbers unknown @@\n---x\n+++y\n") == ["hunk", "del", "add"]
    # ...and invents no line numbers for them
    assert {row.old or row.new for row in diff_view(FileChange("x", diff="@@ unknown @@\n-a\n+b\n")).rows} == {None}


def test_side_files_agent_meta_and_stored_tool_results(data):
    # -home-dev-big: the Bash result is a preview naming tool-results/toolu_b1.txt, which holds
    # "line 1" .. "line 5000", one per line: 9*7 + 90*8 + 900*9 + 4000*10 + 1*10 = 48,893 bytes.
    # subagents/agent-b2.meta.json gives the agent type and description.
    [source] = find_sources(data / "claude/-home-dev-big", [READER], [])
    [session] = READER.read(source)
    bash, task = [call for step in session.steps for call in step.tool_calls]
    assert len(bash.output) == 48_893 and bash.output.startswith("line 1\n") and bash.output.endswith("line 5000\n")
    [child] = session.children
    assert task.child_session_id == child.id
    assert child.title == "Summarise build log"
    assert [(f.label, f.value) for f in child.facts if f.label in ("Agent type", "Description")] == [
        ("Agent type", "general-purpose"), ("Description", "Summarise build log")]
    # The meta file is read beside the transcript, never taken for a log of its own.
    assert not [p for p in session.problems if "meta.json" in str(p)]


def test_inline_sidechains_become_one_child_per_root_linked_to_their_task(data):
    # -home-dev-inline (1.0.x): two Task calls in one response; their subagents' lines are in
    # the main file (isSidechain, no agentId), interleaved, each tree with its own root (lines 3
    # and 4). One child per root, each linked to the Task whose prompt it starts with.
    [source] = find_sources(data / "claude/-home-dev-inline", [READER], [])
    [session] = READER.read(source)
    first, second = session.children
    assert [(c.title, len(c.steps), c.usage.input, c.usage.output) for c in (first, second)] == [
        ("Check a.py", 2, 200, 10), ("Check b.py", 2, 210, 8)]
    tasks = [call for step in session.steps for call in step.tool_calls]
    assert [call.child_session_id for call in tasks] == [first.id, second.id]
    # The parent's own figures: 100 + 150 input, 60 + 12 output; each child counted once on top.
    assert (session.usage.input, session.usage.output, session.tool_calls) == (250, 72, 2)
    assert session.usage_with_children.input == 250 + 200 + 210


def test_failures_interrupt_and_api_error_without_a_rewind_are_not_a_rewound_branch(data):
    # -home-dev-failing (2.1.4): two failed Bash calls, an interrupt, a Caveat line with no
    # parent (a second root, written after them), then an api_error system line whose parent is
    # the interrupt. The path to the file's last line runs through every failure, and nothing
    # re-parents onto an earlier point: no line is a rewound branch.
    [source] = find_sources(data / "claude/-home-dev-failing", [READER], [])
    [session] = READER.read(source)
    assert not [step for step in session.steps if (step.title or "").startswith(ABANDONED_TITLE)]
    assert session.failed_tool_calls == 2
    assert [step.title for step in session.steps if step.kind == "event"] == ["Interrupted by the user", "API error, retry 1"]
    assert session.outcome == "interrupted"  # the retry is bookkeeping; the interrupt ended the session


def test_subagent_named_only_by_the_task_result_agent_id_is_linked(data):
    # -home-dev-named: agent-n1.jsonl carries a sessionId that no main file has (…00ff); the
    # main file's Task result says agentId "n1". The agent is linked to that Task, not left
    # as a top-level session: parent usage 70 in / 32 out, the agent's 250 / 10 rolled up once.
    sources = find_sources(data / "claude/-home-dev-named", [READER], [])
    [source] = sources
    assert [p.name for p in source.related] == ["agent-n1.jsonl"]
    [session] = READER.read(source)
    [child] = session.children
    [task] = [call for step in session.steps for call in step.tool_calls]
    assert task.child_session_id == child.id
    assert (session.usage_with_children.input, session.usage_with_children.output) == (320, 42)


def test_a_result_without_its_call_is_shown_but_not_counted_as_a_tool_call(data, tmp_path):
    # -home-dev-failing without line 2 (the first Bash tool_use): line 3's failed result has
    # no call. It stays visible as a collapsed event holding its text, and the session counts
    # one tool call (the second Bash), one failed.
    lines = (data / "claude/-home-dev-failing/e7000000-0000-4000-8000-00000000000f.jsonl").read_text().splitlines(keepends=True)
    log = tmp_path / "e7000000-0000-4000-8000-00000000000f.jsonl"
    log.write_text("".join(lines[:1] + lines[2:]))
    [session] = READER.read(find_sources(log, [READER], [])[0])
    [stray] = [step for step in session.steps if (step.title or "").startswith("Tool result without its call")]
    assert stray.title.endswith("(an error)") and "No rule to make target 'docs'" in stray.text and stray.collapsed
    assert (session.tool_calls, session.failed_tool_calls) == (1, 1)


def test_a_summary_in_another_log_of_the_project_is_remembered_by_that_log_s_stat(tmp_path, monkeypatch):
    """A title given by a summary line in another log of the project folder: that log is read
    once, then remembered in the cache folder while its size, mtime and inode stay; changed,
    it is read again (meta._project_summaries)."""
    from replay_site.readers.claude import meta

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project = tmp_path / "-home-dev-app"
    project.mkdir()
    uuid = "aaaaaaaa-0000-4000-8000-000000000001"
    main = project / "11111111-0000-4000-8000-000000000001.jsonl"
    main.write_text(json.dumps({"type": "user", "uuid": uuid, "parentUuid": None, "sessionId": main.stem,
                                "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": "hello"}}) + "\n")
    other = project / "22222222-0000-4000-8000-000000000002.jsonl"
    other.write_text(json.dumps({"type": "summary", "summary": "First title", "leafUuid": uuid}) + "\n")
    read = []
    real = meta._summaries_in
    monkeypatch.setattr(meta, "_summaries_in", lambda path: read.append(path.name) or real(path))

    def title() -> str:
        meta._project_summaries.cache_clear()  # a new process
        [session] = READER.read(SessionSource("claude", main, project))
        return session.title

    assert title() == "First title" and sorted(read) == sorted([main.name, other.name])
    read.clear()
    assert title() == "First title" and read == []  # both remembered
    other.write_text(json.dumps({"type": "summary", "summary": "Second title!", "leafUuid": uuid}) + "\n")
    assert title() == "Second title!" and read == [other.name]
