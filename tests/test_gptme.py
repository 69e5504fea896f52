"""The gptme reader against the real corpus, the example sessions, and small edge cases."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay_site.discover import find_sources
from replay_site.readers import SessionSource
from replay_site.readers.gptme.calls import parse_calls
from replay_site.readers.gptme.reader import READER


def read_one(path: Path, root: Path | None = None):
    sources = list(find_sources(root or path, [READER], []))
    assert len(sources) == 1, sources
    (session,) = READER.read(sources[0])
    return session


def write_log(folder: Path, messages: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "conversation.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


# Figures worked out by hand from the raw conversation.jsonl lines (events.jsonl ignored):
# - steps = hidden/pinned system lines (6 in every corpus session: "You are gptme", cache boundary,
#   System Information, Current Date, workspace-agents warning, budget) + user lines + assistant lines;
#   the other system lines are tool results and make no step.
# - tool calls = ```shell/save/append/patch/ipython/complete fences or @tool(call_…) lines in assistant
#   content, one per assistant line here.
# - tokens = sums of metadata.usage over assistant lines; no line has metadata.cost, so cost is unknown.
CORPUS = {
    # 23 lines: 6 context + user l7 + assistants l8,10,...,22 (8) = 15 steps, 8 calls
    # (shell, save, shell, shell, patch, patch, shell, complete). l15 ends "Return code: 2" -> 1 failed.
    # input 1765+2008+1869+3489+3172+3309+3463+3595 = 22670; output 188+320+30+55+85+102+15+92 = 887;
    # cache_read 1024+1024+1536+2560+3072*4 = 18432.
    "csvstat-region-summary": dict(steps=15, calls=8, failed=1, errors=1, input=22670, output=887, cache_read=18432,
                                   title="CSV region summary script", models=["local/mock-coder"]),
    # 15 lines: 6 context + user l7 + assistants l8,10,12,14 = 11 steps, 4 calls (ipython x3, complete);
    # l11 has "Exception during execution on line 1" -> 1 failed.
    # input 814+941+1161+1287 = 4203; output 68+40+62+71 = 241; cache_read 4*512 = 2048.
    "ipython-retry-latency": dict(steps=11, calls=4, failed=1, errors=1, input=4203, output=241, cache_read=2048,
                                  title="Retry latency exploration", models=["local/mock-alpha"]),
    # 22 lines: 6 context + users l7,l16 + assistants l8,10,12,14,17,19,21 = 15 steps, 7 calls
    # (save, append, shell, complete, append, shell, complete), no failure.
    # input 1424+1521+1603+1732+1838+1917+2041 = 12076; output 58+42+14+24+40+25+23 = 226; cache 7*1024 = 7168.
    # metadata.model is local/mock-alpha on l8-l14 and local/mock-beta on l17-l21 (resume with -m).
    "changelog-append-resume": dict(steps=15, calls=7, failed=0, errors=0, input=12076, output=226, cache_read=7168,
                                    title="Changelog upkeep", models=["local/mock-alpha", "local/mock-beta"]),
    # 22 lines: 6 context + users l7,l18 + assistants l8,10,12,14,16,19,21 = 15 steps; 7 `@tool(call_…)` lines
    # (save, shell, patch, shell, complete, shell, complete), 7 results with matching call_id; l15's
    # "exit=1" is echoed by a command that itself exits 0 (no "Return code") -> 0 failed.
    # input 1809+1956+1564+1729+1822+1954+2046 = 12880; output 71+25+77+13+29+11+31 = 257;
    # cache_read 1024+1024+1536*5 = 9728.
    "native-wordfreq": dict(steps=15, calls=7, failed=0, errors=0, input=12880, output=257, cache_read=9728,
                            title="Word frequency script", models=["local/mock-coder"]),
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_figures(corpus: Path, name: str) -> None:
    want = CORPUS[name]
    session = read_one(corpus / "gptme" / name)
    assert session.problems == []
    assert len(session.steps) == want["steps"]
    assert [s.number for s in session.steps] == list(range(1, want["steps"] + 1))
    assert session.tool_calls == want["calls"]
    assert session.failed_tool_calls == want["failed"]
    assert session.error_count == want["errors"]
    usage = session.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (
        want["input"], want["output"], want["cache_read"], 0)
    assert session.cost.priced_steps == 0 and session.cost.source == "unknown"
    assert all(step.cost is None for step in session.steps)  # no metadata.cost: unknown, never $0
    assert session.title == want["title"]
    assert session.models == want["models"]
    assert session.local_time and session.started_at.tzinfo is None
    assert session.agent_version == "0.35.1"
    calls = [c for s in session.steps for c in s.tool_calls]
    assert not any(c.missing_result or c.orphan for c in calls)
    assert all(s.collapsed for s in session.steps if s.kind == "context")
    assert sum(s.kind == "context" for s in session.steps) == 6


def test_corpus_find_skips_events_and_other_formats(corpus: Path) -> None:
    # From the corpus root: the 4 gptme folders only (each has events.jsonl beside it; glue folders
    # also hold a conversation.jsonl, but its lines have `type`, not `role`).
    sources = list(find_sources(corpus, [READER], []))
    assert sorted(s.rel for s in sources) == sorted(f"gptme/{n}/conversation.jsonl" for n in CORPUS)
    one = corpus / "gptme" / "native-wordfreq" / "conversation.jsonl"
    assert [s.path for s in find_sources(one, [READER], [])] == [one]
    assert list(find_sources(one.with_name("events.jsonl"), [READER], [])) == []


def test_corpus_csvstat_details(corpus: Path) -> None:
    session = read_one(corpus / "gptme" / "csvstat-region-summary")
    calls = [c for s in session.steps for c in s.tool_calls]
    # l9's header abbreviates the heredoc command as "python3 - <<'EOF'... (11 lines)": still its result.
    assert calls[0].language == "bash" and calls[0].code.startswith("python3 - <<'EOF'")
    assert "`321 sales.csv`" in calls[0].output
    failed = next(c for c in calls if c.is_error)
    assert failed.exit_code == 2 and "no-such-file.csv" in failed.code
    assert session.first_error_step == 11  # 6 context + user + assistants l8,l10,l12,l14
    # save made the file known, so the two patches diff against it with real line numbers.
    save, patch1, patch2 = (c for c in calls if c.name in ("save", "patch"))
    assert save.changes[0].kind == "add" and save.changes[0].diff.startswith("@@ -0,0 +1,39 @@")
    assert patch1.changes[0].diff.startswith("@@ -11,7 +11,7 @@")
    assert "+        name: (len(vals), sum(vals), statistics.mean(vals), statistics.median(vals))" in patch1.changes[0].diff
    assert patch2.changes[0].diff.startswith("@@ -30,8 +30,8 @@")
    assert save.language == "python" and save.arguments == {"path": "csvstat.py"}


def test_corpus_native_and_append(corpus: Path) -> None:
    native = read_one(corpus / "gptme" / "native-wordfreq")
    calls = [c for s in native.steps for c in s.tool_calls]
    assert [c.id for c in calls] == ["call_006_0", "call_008_0", "call_009_0", "call_010_0", "call_011_0",
                                     "call_012_0", "call_013_0"]
    assert calls[1].code.startswith("printf 'the cat and the hat") and calls[1].arguments is None
    assert calls[2].changes[0].diff.startswith("@@ -1,4 +1,7 @@")
    # Assistant text is the prose only; the @tool line is shown as the call.
    assert native.steps[7].text == "I'll write a small word-frequency script first."

    changelog = read_one(corpus / "gptme" / "changelog-append-resume")
    appends = [c for s in changelog.steps for c in s.tool_calls if c.name == "append"]
    # Second append: after save + first append the file has 13 lines; the new lines go at the end.
    assert appends[1].changes[0].diff == (
        "@@ -11,3 +11,5 @@\n - `--json` output flag\n ### Fixed\n - Crash when the input file is empty\n"
        "+### Deprecated\n+- `render --legacy` will be removed in 0.3.0\n"
    )


def test_example_markdown_session(data: Path) -> None:
    session = read_one(data / "gptme" / "markdown-hello")
    # 16 lines, l11 truncated -> skipped; 3 hidden system + user + assistants l5,l7,l9,l12,l15 + the
    # unhidden <system_info> notice l13 = 10 steps. Calls: save, shell, patch, shell+shell, complete = 6.
    assert [str(p) for p in session.problems] == ["conversation.jsonl:11: truncated line, skipped"]
    assert len(session.steps) == 10 and session.tool_calls == 6
    assert session.title == "Loud hello script" and session.cwd == "/home/dev/demo"
    # Failing command: "Return code: 2" on l8.
    assert session.failed_tool_calls == 1 and session.error_count == 1
    shell = session.steps[5].tool_calls[0]
    assert (shell.is_error, shell.exit_code) == (True, 2)
    # The ```python block in prose is not a call; it stays in the text.
    first = session.steps[4]
    assert [c.name for c in first.tool_calls] == ["save"]
    assert "```python\nprint(f\"Hello, {name}!\")\n```" in first.text and "```save" not in first.text
    # Tokens: nested usage on l5,l7,l12,l15, old flat fields on l9.
    # input 1200+90+120+100+80 = 1590; output 150+30+60+25+20 = 285; cache_read 3000+4600+4700+4800+5000 = 22100;
    # cache_creation 400 (l5). Cost logged on l5,l7,l9,l15: 0.0123+0.0041+0.0037+0.0029 = 0.023; l12 has none.
    usage = session.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write_5m) == (1590, 285, 22100, 400)
    assert session.cost.usd == pytest.approx(0.023)
    assert (session.cost.priced_steps, session.cost.unpriced_steps) == (4, 0)
    assert session.steps[7].cost is None
    # patch diffs against the saved file: line 6 of 6 replaced.
    patch = session.steps[6].tool_calls[0]
    assert "-print(f\"Hello, {args.name}!\")\n+print(f\"HELLO, {args.name.upper()}!!\")" in patch.changes[0].diff
    # Two shell calls, only `cat hello.py` answered: paired by content, `ls` is missing, no shift.
    ls, cat = session.steps[7].tool_calls
    assert ls.code == "ls" and ls.missing_result and ls.output is None
    assert cat.code == "cat hello.py" and not cat.missing_result and "HELLO" in cat.output
    assert session.steps[8].kind == "context" and session.steps[8].collapsed
    assert all(s.collapsed for s in session.steps[:3])


def test_example_native_session(data: Path) -> None:
    session = read_one(data / "gptme" / "native-notes")
    # 12 lines, l7 not JSON; system prompt + 2 users (l2, nudge l8 as context) + 4 assistants = 7 steps.
    assert [str(p) for p in session.problems][0].startswith("conversation.jsonl:7: invalid JSON")
    assert len(session.steps) == 7 and session.tool_calls == 4
    assert session.title.startswith("List notes.txt with line numbers")  # no [chat] name
    # l6 "Error during execution: Path traversal..." answers call_a2.
    failed = session.steps[3].tool_calls[0]
    assert failed.id == "call_a2" and failed.is_error and failed.changes == []
    assert session.error_count == 1
    assert session.steps[4].kind == "context" and session.steps[4].title == "Auto-reply nudge"
    # input 800+850+900+950 = 3500, output 20+25+30+15 = 90; no cost anywhere -> unknown.
    assert (session.usage.input, session.usage.output) == (3500, 90)
    assert session.cost.source == "unknown"


def test_pairing_by_content_when_a_result_is_missing(tmp_path: Path) -> None:
    # Three calls; the save's result never came. Positional pairing would shift "Patch..." onto
    # the save and leave the shell unpaired; by content each result finds its own call.
    text = ("Three steps:\n\n```save a.txt\nhello\n```\n\n```patch b.txt\n<<<<<<< ORIGINAL\nx\n=======\ny\n"
            ">>>>>>> UPDATED\n```\n\n```shell\nmake test\n```\n")
    write_log(tmp_path / "conv", [
        {"role": "user", "content": "go", "timestamp": "2026-01-01T10:00:00"},
        {"role": "assistant", "content": text, "timestamp": "2026-01-01T10:00:01"},
        {"role": "system", "content": "Patch successfully applied to `/w/b.txt`", "timestamp": "2026-01-01T10:00:02"},
        {"role": "system", "content": "Ran command: `make test`\n\nNo output\nReturn code: 2\n",
         "timestamp": "2026-01-01T10:00:03"},
    ])
    session = read_one(tmp_path / "conv")
    save, patch, shell = session.steps[1].tool_calls[:3]
    assert save.missing_result and save.output is None
    assert patch.output.startswith("Patch successfully") and not patch.missing_result
    assert shell.is_error and shell.exit_code == 2
    assert save.changes[0].kind == "add"  # unknown outcome, but no error: the edit is shown
    # A result for a tool no call used stays visible, as an orphan call:
    write_log(tmp_path / "conv2", [
        {"role": "assistant", "content": "```shell\nls\n```", "timestamp": "2026-01-01T10:00:01"},
        {"role": "system", "content": "Ran command: `ls`\n\nNo output\n", "timestamp": "2026-01-01T10:00:02"},
        {"role": "system", "content": "Appended to notes.md", "timestamp": "2026-01-01T10:00:03"},
    ])
    other = read_one(tmp_path / "conv2")
    ls, orphan = other.steps[0].tool_calls
    assert ls.output.startswith("Ran command") and orphan.orphan and orphan.name == "append"


def test_native_ids_beat_order(tmp_path: Path) -> None:
    write_log(tmp_path / "c", [
        {"role": "assistant", "content": '@shell(c1): {"command": "ls"}\n@shell(c2): {"command": "pwd"}',
         "timestamp": "2026-01-01T10:00:01"},
        {"role": "system", "content": "Ran command: `pwd`\n\n`/w`\n", "call_id": "c2", "timestamp": "2026-01-01T10:00:02"},
        {"role": "system", "content": "Error: boom", "call_id": "zz", "timestamp": "2026-01-01T10:00:03"},
    ])
    session = read_one(tmp_path / "c")
    c1, c2, stray = session.steps[0].tool_calls
    assert c1.missing_result and c2.output.endswith("`/w`\n") and stray.orphan and stray.is_error
    assert session.error_count == 1  # the stray error result still counts


def test_prose_blocks_and_nested_fences_are_not_calls() -> None:
    text = ("Example:\n\n```python\nprint(1)\n```\n\n```stdout\n1\n```\n\n```bash\nls\n```\n\n"
            "````save README.md\n# Demo\n\n```python\nimport demo\n```\n````\n\n"
            "Doc example, not a call:\n```text\n@shell(x1): {\"command\": \"rm -rf /\"}\n```\n")
    calls = parse_calls(text)
    assert [(c.tool, c.path) for c in calls] == [("save", "README.md")]
    assert calls[0].body == "# Demo\n\n```python\nimport demo\n```"
    xml = parse_calls("Run it:\n<tool-use>\n<shell>\necho &lt;hi&gt;\n</shell>\n</tool-use>")
    assert [(c.tool, c.body) for c in xml] == [("shell", "echo <hi>")]


def test_find_forms_and_glue_not_claimed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    logs = tmp_path / "logs"
    path = write_log(logs / "2026-01-01-happy-frog", [{"role": "user", "content": "hi", "timestamp": "2026-01-01T10:00:00"}])
    glue = logs / "glue-session"
    glue.mkdir()
    (glue / "conversation.jsonl").write_text('{"type": "user_message", "content": "hi"}\n')
    assert [s.path for s in find_sources(logs, [READER], [])] == [path]
    assert [s.path for s in find_sources(path.parent, [READER], [])] == [path]
    assert [s.path for s in find_sources(path, [READER], [])] == [path]
    assert list(find_sources(glue, [READER], [])) == []
    session = read_one(logs)
    assert session.id == "2026-01-01-happy-frog" and session.title == "hi"
    assert session.source == "2026-01-01-happy-frog/conversation.jsonl"
    monkeypatch.setenv("GPTME_LOGS_HOME", str(logs))
    assert READER.default_dirs() == [logs]
    monkeypatch.delenv("GPTME_LOGS_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert READER.default_dirs() == [tmp_path / "gptme" / "logs"]


def test_bad_messages_are_kept_visible(tmp_path: Path) -> None:
    path = write_log(tmp_path / "c", [
        {"role": "tool", "content": "?", "timestamp": "2026-01-01T10:00:00"},
        {"role": "user", "content": ["not", "text"]},
    ])
    (session,) = READER.read(SessionSource("gptme", path, tmp_path))
    assert [s.kind for s in session.steps] == ["event", "event"]
    assert [p.kind for p in session.problems] == ["unknown_event", "unknown_event"]
    assert session.steps[0].details[0].text.startswith('{"role":"tool"')


def test_plain_system_messages_and_declined_calls(tmp_path: Path) -> None:
    write_log(tmp_path / "c", [
        {"role": "assistant", "content": "Just an answer, no call.", "timestamp": "2026-01-01T10:00:01"},
        {"role": "system", "content": "Tokens used: 1234", "timestamp": "2026-01-01T10:00:02"},
        {"role": "assistant", "content": "```gh pr checks 12\n```", "timestamp": "2026-01-01T10:00:03"},
        {"role": "system", "content": "Waiting for checks on commit abc1234...\n", "timestamp": "2026-01-01T10:00:04"},
        {"role": "system", "content": "All 3 checks passed", "timestamp": "2026-01-01T10:00:05"},
        {"role": "assistant", "content": "```shell\nrm -rf build\n```", "timestamp": "2026-01-01T10:00:06"},
        {"role": "system", "content": "Execution declined by user", "timestamp": "2026-01-01T10:00:07"},
    ])
    session = read_one(tmp_path / "c")
    # A system note that answers no call is its own visible step, not an orphan result.
    assert [s.kind for s in session.steps] == ["assistant", "event", "assistant", "assistant"]
    assert session.steps[1].text == "Tokens used: 1234"
    # gh yields two messages for one call: both are its output. Arguments are the info-string words.
    gh = session.steps[2].tool_calls[0]
    assert gh.arguments == "pr checks 12" and gh.code is None
    assert gh.output.startswith("Waiting") and gh.output.endswith("All 3 checks passed")
    declined = session.steps[3].tool_calls[0]
    assert declined.is_error and session.error_count == 0 and session.declined_calls == 1  # a refusal, not an error


def test_pre_2024_bash_blocks_and_function_calls_xml_are_calls(data: Path) -> None:
    # legacy-forms (September 2023): a ```bash block, which gptme ran as a shell command then,
    # and the `<function_calls><invoke name="shell">` form; each answered by the next system
    # message ("Ran command: …"). Two shell calls, both with their output; no prose left over
    # from the XML.
    [source] = find_sources(data / "gptme/legacy-forms", [READER], [])
    [session] = READER.read(source)
    calls = [(step.number, call) for step in session.steps for call in step.tool_calls]
    assert [(n, c.name, c.code) for n, c in calls] == [(3, "shell", "find . -name '*.py' | wc -l"), (5, "shell", "ls tests")]
    assert all(c.output.startswith("Ran command:") and not c.missing_result for _, c in calls)
    assert session.steps[2].text == "Counting them:" and session.steps[4].text == ""
    # After 2024 a ```bash block is prose again.
    assert parse_calls("```bash\nls\n```") == []
    assert [c.tool for c in parse_calls("```bash\nls\n```", legacy_shell=True)] == ["shell"]


def test_branches_are_linked_forks_without_the_copied_history(data: Path) -> None:
    # branches/tests-only.jsonl repeats the conversation's first 4 messages (system prompt,
    # question, ```bash call, its result), then asks and runs one more command. branches/main.jsonl
    # is the conversation itself: nothing of its own, so no session.
    [source] = find_sources(data / "gptme/legacy-forms", [READER], [])
    [session] = READER.read(source)
    [fork] = session.children
    assert (fork.relation, fork.parent_id, fork.title) == ("fork", session.id, "Branch tests-only: Count the test files only.")
    copied, question, answer = fork.steps
    assert (copied.kind, copied.collapsed, copied.title) == ("event", True, f"Copied from {session.id}")
    assert question.text == "Count the test files only."
    [call] = answer.tool_calls
    assert (call.code, fork.tool_calls, session.tool_calls) == ("ls tests | wc -l", 1, 2)
