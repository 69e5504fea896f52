"""gptme: a patch shown once, and a log recognised by its content whatever its name."""
from __future__ import annotations

import shutil

from replay_site.discover import find_sources, pick_readers
from replay_site.readers.gptme.reader import READER


def test_patch_is_shown_once_as_its_diff(data):
    # markdown-hello line 9: ```patch hello.py``` turning print(f"Hello, …!") into print(f"HELLO, …!!").
    [source] = find_sources(data / "gptme/markdown-hello", [READER], [])
    [session] = READER.read(source)
    [patch] = [call for step in session.steps for call in step.tool_calls if call.name == "patch"]
    assert patch.code is None  # not the raw ORIGINAL/UPDATED block as well
    [change] = patch.changes
    assert change.path == "hello.py"
    assert [line for line in change.diff.splitlines() if line[:1] in "+-"] == [
        '-print(f"Hello, {args.name}!")', '+print(f"HELLO, {args.name.upper()}!!")']


def test_a_renamed_gptme_log_in_a_folder_is_recognised_by_its_content(data, tmp_path):
    folder = tmp_path / "exported"
    folder.mkdir()
    shutil.copy(data / "gptme/markdown-hello/conversation.jsonl", folder / "2026-03-02-hello.jsonl")
    # A branch copy under branches/ is the conversation's fork, never a session of its own.
    (folder / "branches").mkdir()
    shutil.copy(data / "gptme/markdown-hello/conversation.jsonl", folder / "branches" / "alt.jsonl")
    problems: list = []
    sources = find_sources(tmp_path, pick_readers("auto"), problems)
    assert [(s.format, s.path.name) for s in sources] == [("gptme", "2026-03-02-hello.jsonl")]
