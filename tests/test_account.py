"""The account of everything read (issue 16): every log line counted by kind as shown, not
shown by design or of an unknown kind, per session (`records`) and for the site (`inputs`);
warnings only for problems. Counts are worked out by hand from the fixture lines."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from bs4 import BeautifulSoup
from typer.testing import CliRunner

from replay_site.pipeline import stages as site
from replay_site.cli.app import app
from replay_site.load import ReadOptions, iter_sessions

DATA = Path(__file__).parent / "data"
CODEX_OUTCOME = DATA / "codex" / "outcome"
GLUE_RUNNING = DATA / "glue" / "1791000900000-7070-running"
CLAUDE_CLEAN = DATA / "claude" / "-home-dev-clean"
CLEAN_ID = "d1000000-0000-4000-8000-000000000001"
RLM_NONFINITE = DATA / "rlm" / "nonfinite"


def read(root: Path) -> dict:
    return {session.id: session for session in iter_sessions([root], ReadOptions(redact=False))}


def build(roots: list[Path], out: Path, incremental: bool = False) -> site.BuildResult:
    return site.build(roots, out, site.BuildOptions(redact=False, jobs=1, incremental=incremental))


def sessions_json(out: Path) -> dict:
    return json.loads((out / "sessions.json").read_text())


# --- per format: each line of the fixture counted once ----------------------------------------

def test_codex_lines_are_counted_by_envelope_and_payload_type():
    sessions = read(CODEX_OUTCOME)
    # 0.169 file, 13 lines: 1 session_meta, 1 turn_context, 2 response_item message (user line 4,
    # assistant line 9), 1 user_message, 1 function_call, 1 function_call_output, 2 token_count,
    # 1 agent_message shown; task_started (2) and task_complete (13) are turn bookkeeping, not
    # shown by design; line 12 `future_record` is a kind the reader does not know.
    newer = sessions["0a169000-0000-4000-8000-000000000169"]
    assert newer.records == {
        "shown": {"session_meta": 1, "turn_context": 1, "response_item/message": 2, "event_msg/user_message": 1,
                  "response_item/function_call": 1, "response_item/function_call_output": 1,
                  "event_msg/token_count": 2, "event_msg/agent_message": 1},
        "not_shown": {"event_msg/task_started": 1, "event_msg/task_complete": 1},
        "unknown": {"future_record": 1},
    }
    # 0.47 writes the same scenario without the task_* lines and the unknown one: 10 lines, all shown.
    older = sessions["0a470000-0000-4000-8000-000000000047"]
    assert older.records["not_shown"] == older.records["unknown"] == {}
    assert sum(older.records["shown"].values()) == 10
    # The unknown kind is a problem (a warning naming the line); bookkeeping is not.
    assert [str(p) for p in newer.problems] == [
        "rollout-2025-10-20T10-00-00-0a169000-0000-4000-8000-000000000169.jsonl:12: unknown Codex line kind 'future_record', shown as a stub"]
    assert older.problems == []


def test_glue_lines_are_counted_by_type():
    [session] = read(GLUE_RUNNING).values()
    # conversation.jsonl: lines 1-5 user_message, assistant_message, tool_call, tool_result,
    # agent_notice; line 6 plan_updated is unknown to the reader (meta.json is not a line).
    assert session.records == {
        "shown": {"user_message": 1, "assistant_message": 1, "tool_call": 1, "tool_result": 1, "agent_notice": 1},
        "not_shown": {},
        "unknown": {"plan_updated": 1},
    }


def test_rlm_lines_of_a_merged_run_count_the_other_shape_as_not_shown():
    [session] = read(RLM_NONFINITE).values()
    # runs/…020.jsonl: 4 step lines and 1 final; session_….jsonl (the same run as session
    # events, merged into it): session_start and session_end, whose steps are the run file's.
    assert session.records == {"shown": {"step": 4, "final": 1}, "not_shown": {"session_start": 1, "session_end": 1},
                               "unknown": {}}


def test_claude_bookkeeping_is_counted_not_warned_about():
    [session] = read(CLAUDE_CLEAN).values()
    # Lines 2-4, 6: user, assistant, user (tool result), assistant; lines 1 and 5 are
    # file-history-snapshots, line 7 last-prompt: Claude Code's own bookkeeping.
    assert session.records == {"shown": {"user": 2, "assistant": 2},
                               "not_shown": {"file-history-snapshot": 2, "last-prompt": 1}, "unknown": {}}
    assert session.problems == []


# --- the site: sessions.json `inputs`, the index line, a session's own line --------------------

def test_inputs_add_up_the_sessions_and_name_skipped_files(tmp_path):
    logs = tmp_path / "logs"
    shutil.copytree(CODEX_OUTCOME, logs / "codex")
    shutil.copytree(GLUE_RUNNING, logs / "glue" / GLUE_RUNNING.name)
    (logs / "notes.jsonl").write_text('{"hello": "world"}\n')  # JSON lines no reader knows
    result = build([logs], tmp_path / "site")
    document = sessions_json(tmp_path / "site")
    # Files read: the 2 rollouts, and the Glue folder's conversation.jsonl and meta.json.
    assert document["inputs"]["files_read"] == 4
    assert document["inputs"]["files_skipped"] == [{"path": "notes.jsonl", "reason": "no reader recognises this file"}]
    # Records: the three sessions' counts added (see the tests above): 10 + 10 + 5 shown,
    # 2 not shown, 2 unknown.
    records = document["inputs"]["records"]
    assert (sum(records["shown"].values()), sum(records["not_shown"].values())) == (25, 2)
    assert records["unknown"] == {"future_record": 1, "plan_updated": 1}
    assert records["shown"]["event_msg/token_count"] == 4 and records["shown"]["user_message"] == 1
    assert all(set(entry["records"]) == {"shown", "not_shown", "unknown"} for entry in document["sessions"])
    # Warnings: the two unknown kinds and the skipped file, nothing else.
    assert sorted(p.kind for p in result.problems) == ["skipped_file", "unknown_event", "unknown_event"]
    assert "notes.jsonl: no reader recognises this file, skipped" in {str(p) for p in result.problems}

    index = BeautifulSoup((tmp_path / "site" / "index.html").read_text(), "html.parser")
    assert index.select_one("#inputs").get_text() == (
        "Read: 4 log files, 29 records: 25 shown, 2 not shown by design, 2 of unknown kinds "
        "(future_record, plan_updated); 1 file skipped.")
    glue = next(entry for entry in document["sessions"] if entry["format"] == "glue")
    page = BeautifulSoup((tmp_path / "site" / glue["page"]).read_text(), "html.parser")
    read_line = next(div for div in page.select("div.warn") if div.dt.get_text() == "Read")
    assert read_line.dd.get_text() == "6 records: 5 shown, 0 not shown by design, 1 of unknown kinds (plan_updated)"
    # A session that read cleanly has no such line.
    older = next(entry for entry in document["sessions"] if entry["id"].startswith("0a47"))
    page = BeautifulSoup((tmp_path / "site" / older["page"]).read_text(), "html.parser")
    assert not [div for div in page.select("div.warn") if div.dt.get_text() == "Read"]


def test_the_counts_survive_the_build_cache(tmp_path):
    logs, out = tmp_path / "logs", tmp_path / "site"
    shutil.copytree(CODEX_OUTCOME, logs / "codex")
    build([logs], out, incremental=True)
    first = sessions_json(out)
    # A new log beside them: the Codex sources come from the cache, sessions.json is written again.
    shutil.copytree(GLUE_RUNNING, logs / "glue" / GLUE_RUNNING.name)
    build([logs], out, incremental=True)
    second = sessions_json(out)
    cached = {entry["id"]: entry["records"] for entry in second["sessions"] if entry["format"] == "codex"}
    assert cached == {entry["id"]: entry["records"] for entry in first["sessions"]}
    assert second["inputs"]["records"]["unknown"] == {"future_record": 1, "plan_updated": 1}
    # And the same input gives the same bytes, cache or not.
    build([logs], tmp_path / "fresh")
    assert (out / "sessions.json").read_bytes() == (tmp_path / "fresh" / "sessions.json").read_bytes()


def test_a_clean_claude_folder_of_200_sessions_builds_without_a_warning(tmp_path):
    logs = tmp_path / "projects" / "-home-dev-clean"
    logs.mkdir(parents=True)
    text = (CLAUDE_CLEAN / f"{CLEAN_ID}.jsonl").read_text()
    for number in range(200):
        ident = f"d1000000-0000-4000-8000-{number:012d}"
        # Each copy its own session: new session id, new line uuids (d2… -> d3…-<number>).
        (logs / f"{ident}.jsonl").write_text(text.replace(CLEAN_ID, ident).replace("d2000000-0000-4000-8000-", f"d3{number:06d}-0000-4000-8000-"))
    result = build([tmp_path / "projects"], tmp_path / "site")
    assert result.problems == []
    document = sessions_json(tmp_path / "site")
    assert document["inputs"]["files_read"] == 200 and document["inputs"]["files_skipped"] == []
    assert len(document["sessions"]) == 200
    assert all(entry["records"]["not_shown"] == {"file-history-snapshot": 2, "last-prompt": 1} for entry in document["sessions"])
    # 200 × the fixture's 7 lines: 4 shown, 3 not shown by design.
    assert document["inputs"]["records"] == {"shown": {"assistant": 400, "user": 400},
                                             "not_shown": {"file-history-snapshot": 400, "last-prompt": 200}, "unknown": {}}
    index = BeautifulSoup((tmp_path / "site" / "index.html").read_text(), "html.parser")
    assert index.select_one("#inputs").get_text() == "Read: 200 log files, 1,400 records: 800 shown, 600 not shown by design, 0 of unknown kinds."


# --- formats --check ---------------------------------------------------------------------------

def test_formats_check_names_unknown_kinds_by_producer_version(tmp_path):
    logs = tmp_path / "logs"
    shutil.copytree(CODEX_OUTCOME, logs / "codex")
    shutil.copytree(GLUE_RUNNING, logs / "glue" / GLUE_RUNNING.name)
    (logs / "notes.jsonl").write_text('{"hello": "world"}\n')
    result = CliRunner().invoke(app, ["formats", "--check", str(logs)])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        # session_meta cli_version; the file and line the kind is first at
        "codex 0.169.0: unknown record kinds: future_record "
        "(1, first at codex/rollout-2025-10-20T10-00-00-0a169000-0000-4000-8000-000000000169.jsonl:12)",
        # meta.json glue_version
        f"glue 0.9.2: unknown record kinds: plan_updated (1, first at glue/{GLUE_RUNNING.name}/conversation.jsonl:6)",
        "skipped: notes.jsonl: no reader recognises this file",
        "3 sessions read: 3 findings",
    ]
    clean = CliRunner().invoke(app, ["formats", "--check", str(CLAUDE_CLEAN)])
    assert clean.exit_code == 0
    assert clean.stdout.splitlines() == ["1 session read: every record kind known, no file skipped"]


def test_a_log_its_reader_fails_on_is_a_skipped_file(tmp_path, monkeypatch):
    from replay_site.readers import registry

    def failing(source):
        raise RuntimeError("boom")

    monkeypatch.setattr(registry()["glue"], "read_sessions", failing)
    logs = tmp_path / "logs"
    shutil.copytree(GLUE_RUNNING, logs / GLUE_RUNNING.name)
    shutil.copytree(CLAUDE_CLEAN, logs / "claude")
    result = build([logs], tmp_path / "site")
    inputs = sessions_json(tmp_path / "site")["inputs"]
    assert inputs["files_skipped"] == [{"path": GLUE_RUNNING.name, "reason": "could not be read (RuntimeError: boom)"}]
    assert [str(p) for p in result.problems] == [f"{GLUE_RUNNING.name}: could not be read (RuntimeError: boom), skipped"]
