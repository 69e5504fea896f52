"""gptme's events.jsonl: messages undone (/undo) or edited away (/edit) survive only there, and
are shown folded where they stood, like a Claude Code rewind (tests/data/gptme/undo-edit)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from replay_site.figures.summary import outcome
from replay_site.load import ReadOptions, iter_sessions
from replay_site.readers.gptme.events import EDITED, UNDONE

UNDO_EDIT = Path(__file__).parent / "data" / "gptme" / "undo-edit"


def read(root: Path):
    [session] = iter_sessions([root], ReadOptions(redact=False))
    return session


def test_undone_and_edited_messages_are_folded_where_they_stood():
    session = read(UNDO_EDIT)
    # conversation.jsonl (the final state): system prompt, "Count the lines", its `wc -l` call
    # and result, "Now count the words", its `wc -w` call and result, the answer.
    # events.jsonl: lines 4-6 (a prompt with a typo, its call, the failed result) are undone by
    # line 7 (undo n=3); line 8's prompt is replaced by line 9's message_edit. They go after
    # "Count the lines"'s result (the last message before them still in the conversation).
    shown = [(step.kind, step.title, step.text) for step in session.steps]
    assert shown == [
        ("context", "System prompt", session.steps[0].text),
        ("user", None, "Count the lines of notes.txt"),
        ("assistant", None, ""),
        ("user", UNDONE, "Count the words in notes.txx"),
        ("assistant", UNDONE, ""),
        ("user", EDITED, "Now count the words in notes.txt, please"),
        ("user", None, "Now count the words"),
        ("assistant", None, ""),
        ("assistant", None, "notes.txt has 12 lines and 80 words."),
    ]
    assert [step.collapsed for step in session.steps[3:6]] == [True, True, True]
    [undone_call] = session.steps[4].tool_calls
    assert undone_call.code == "wc -w notes.txx" and undone_call.is_error  # its result (line 6) came before the undo
    # It ran and was billed: counted. Costs 0.0030 + 0.0020 (undone) + 0.0025 + 0.0010.
    assert round(session.cost.usd, 6) == 0.0085 and session.failed_tool_calls == 1
    # The last turn ends in a clean answer: completed, whatever failed before.
    assert outcome(session) == "completed"
    # conversation.jsonl: 3 system, 2 user, 3 assistant lines; events.jsonl: 10 message_append
    # lines restate them (not shown by design), the undo and the message_edit are what is shown.
    assert session.records == {"shown": {"system": 3, "user": 2, "assistant": 3, "undo": 1, "message_edit": 1},
                               "not_shown": {"message_append": 10}, "unknown": {}}
    assert session.problems == []


def test_without_events_jsonl_the_conversation_is_read_as_before(tmp_path):
    folder = tmp_path / "undo-edit"
    shutil.copytree(UNDO_EDIT, folder)
    (folder / "events.jsonl").unlink()
    session = read(folder)
    assert [step.text for step in session.steps if step.kind == "user"] == ["Count the lines of notes.txt", "Now count the words"]
    assert not any(step.collapsed for step in session.steps[1:])


def test_odd_events_are_reported_never_fatal(tmp_path):
    folder = tmp_path / "undo-edit"
    shutil.copytree(UNDO_EDIT, folder)
    with (folder / "events.jsonl").open("a") as events:
        events.write(json.dumps({"seq": 13, "type": "branch_switch", "payload": {}}) + "\n")  # unknown type
        events.write(json.dumps({"seq": 14, "type": "undo", "payload": {"n": "all"}}) + "\n")  # n not a count: pops nothing
        events.write(json.dumps({"seq": 15, "type": "message_edit", "payload": {"messages": "x"}}) + "\n")
        events.write("{not json\n")
    session = read(folder)
    assert [str(problem) for problem in session.problems] == [
        "events.jsonl:13: event of unknown type 'branch_switch', not replayed",
        "events.jsonl:15: message_edit without its payload, not replayed",
        "events.jsonl:16: truncated line, skipped",
    ]
    assert session.records["unknown"] == {"branch_switch": 1}
    assert len([step for step in session.steps if step.collapsed]) == 4  # the system prompt and the same 3


def test_a_whole_list_with_the_hidden_system_prompt_takes_nothing_else_back(tmp_path):
    # gptme's message_edit and checkpoint carry the whole log, the system prompt it never
    # appends included: matched by message, not by place, they take back only what they leave out.
    folder = tmp_path / "undo-edit"
    shutil.copytree(UNDO_EDIT, folder)
    final = [json.loads(line) for line in (folder / "conversation.jsonl").read_text().splitlines()]
    with (folder / "events.jsonl").open("a") as events:
        events.write(json.dumps({"seq": 13, "type": "checkpoint", "payload": {"messages": final}}) + "\n")
        events.write(json.dumps({"seq": 14, "type": "message_edit", "payload": {"messages": final}}) + "\n")
    session = read(folder)
    assert [step.title for step in session.steps if step.collapsed] == ["System prompt", UNDONE, UNDONE, EDITED]
    assert session.problems == []
