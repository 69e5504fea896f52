"""A long Claude Code session, written deterministically, for page and speed measurements.

    python tests/gen_long_session.py OUT.jsonl [--steps 10000]
    python tests/gen_long_session.py OUT.jsonl --huge-message 50 | --huge-output 300

Each assistant turn is one API response with a text block and a tool call (Bash, Read, Edit or
Write in turn), answered by a tool result on a user line; every 25th turn starts with a user
prompt and every 7th tool call fails. With `progress`, each tool call is followed by that many
`progress` lines (small lines Claude Code writes while a tool runs), so that a log of many short
lines (issue 12's 200 MB, 400,000 lines: --steps 46000 --progress 6) can be written too. The lines follow ../shared/FORMATS.md (e): one line per
content block sharing `message.id`, results on `user` lines with `toolUseResult`. Nothing here is
random, so two runs write the same bytes.
"""
from __future__ import annotations

import argparse
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

SESSION_ID = "10000000-0000-4000-8000-00000000long"
START = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
MODEL = "claude-sonnet-4-5-20250929"
PROMPT_EVERY = 25
FAIL_EVERY = 7


def _uuid(n: int) -> str:
    return f"20000000-0000-4000-8000-{n:012d}"


def _stamp(seconds: int) -> str:
    return (START + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


class _Writer:
    def __init__(self, out):
        self.out = out
        self.count = 0
        self.clock = 0

    def progress(self, call_id: str, k: int) -> None:
        """A progress line hanging off the last conversation line; it is not part of the chain."""
        record = {"parentUuid": _uuid(self.count), "isSidechain": False, "userType": "external", "cwd": "/home/dev/long",
                  "sessionId": SESSION_ID, "version": "2.0.31", "gitBranch": "main", "type": "progress",
                  "data": {"type": "bash_progress", "output": f"running {k}", "elapsedTimeSeconds": k},
                  "toolUseID": f"{call_id}-{k}", "parentToolUseID": call_id,
                  "uuid": f"30000000-0000-4000-8000-{self.count:08d}{k:04d}", "timestamp": _stamp(self.clock)}
        self.out.write(json.dumps(record, sort_keys=True) + "\n")

    def line(self, kind: str, message: dict, **extra) -> str:
        self.count += 1
        self.clock += 2
        parent = _uuid(self.count - 1) if self.count > 1 else None
        record = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/long",
                  "sessionId": SESSION_ID, "version": "2.0.31", "gitBranch": "main", "type": kind,
                  "uuid": _uuid(self.count), "timestamp": _stamp(self.clock), "message": message, **extra}
        self.out.write(json.dumps(record, sort_keys=True) + "\n")
        return record["uuid"]


def _tool(turn: int) -> tuple[str, dict, str, dict | str]:
    """(name, input, result text, toolUseResult) of turn `turn`'s call."""
    path = f"src/module_{turn % 40}.py"
    choice = turn % 4
    if choice == 0:
        command = f"pytest -q tests/test_{turn % 40}.py"
        stdout = "".join(f"tests/test_{turn % 40}.py::test_case_{k} PASSED\n" for k in range(12))
        return "Bash", {"command": command, "description": "run the tests"}, stdout, {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
    if choice == 1:
        content = "".join(f"def function_{k}(value):\n    return value + {k}\n\n" for k in range(10))
        return "Read", {"file_path": f"/home/dev/long/{path}"}, content, {"type": "text", "file": {"filePath": f"/home/dev/long/{path}", "content": content, "numLines": 30, "startLine": 1, "totalLines": 30}}
    if choice == 2:
        old, new = f"return value + {turn % 10}", f"return value + {turn % 10 + 1}"
        patch = [{"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 1, "lines": [f"-    {old}", f"+    {new}"]}]
        return "Edit", {"file_path": f"/home/dev/long/{path}", "old_string": old, "new_string": new}, "The file has been updated.", {"filePath": f"/home/dev/long/{path}", "oldString": old, "newString": new, "structuredPatch": patch, "userModified": False, "replaceAll": False}
    content = f"# note {turn}\n" + "".join(f"line {k}\n" for k in range(20))
    return "Write", {"file_path": f"/home/dev/long/notes/{turn}.md", "content": content}, "File created successfully.", {"type": "create", "filePath": f"/home/dev/long/notes/{turn}.md", "content": content, "structuredPatch": []}


def write_long_claude_session(path: Path, steps: int = 10000, progress: int = 0) -> Path:
    """Write a Claude Code log of about `steps` steps (user prompts, assistant turns) to `path`
    (a `.jsonl` file; its folder is created). Returns `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        writer = _Writer(out)
        written, turn = 0, 0
        while written < steps:
            if turn % PROMPT_EVERY == 0:
                writer.line("user", {"role": "user", "content": f"Task {turn // PROMPT_EVERY + 1}: tidy module {turn % 40} and run its tests."})
                written += 1
                if written >= steps:
                    break
            name, arguments, result, structured = _tool(turn)
            call_id = f"toolu_{turn:08d}"
            message_id = f"msg_{turn:08d}"
            usage = {"input_tokens": 3, "cache_creation_input_tokens": 200 + turn % 50, "cache_read_input_tokens": 20000 + turn,
                     "cache_creation": {"ephemeral_5m_input_tokens": 200 + turn % 50, "ephemeral_1h_input_tokens": 0}, "output_tokens": 80 + turn % 30}
            for block in ({"type": "text", "text": f"Step {turn}: I'll use **{name}** on `module_{turn % 40}`."},
                          {"type": "tool_use", "id": call_id, "name": name, "input": arguments}):
                writer.line("assistant", {"model": MODEL, "id": message_id, "type": "message", "role": "assistant", "content": [block],
                                          "stop_reason": None, "stop_sequence": None, "usage": usage}, requestId=f"req_{turn:08d}")
            for k in range(progress):
                writer.progress(call_id, k)
            failed = turn % FAIL_EVERY == FAIL_EVERY - 1
            if failed:
                result = structured = f"Error: Exit code 1\nstep {turn} failed"
            writer.line("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": result, "is_error": failed}]},
                        toolUseResult=structured)
            written += 1
            turn += 1
    return path


def _filler(megabytes: int, prefix: str) -> str:
    """About `megabytes` MB of numbered lines (no two alike, as a real output's)."""
    line = " the quick brown fox jumps over the lazy dog, then checks the build log again\n"
    count = megabytes * 1_000_000 // (len(line) + len(prefix) + 8)
    return "".join(f"{prefix} {k:07d}{line}" for k in range(count))


def write_huge_line_session(path: Path, message_mb: int = 0, output_mb: int = 0) -> Path:
    """A short Claude Code log with one huge line: an assistant message of `message_mb` MB, or
    a Bash result whose line is `output_mb` MB (its output written twice, as Claude Code does:
    in the tool_result and in toolUseResult's stdout)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        writer = _Writer(out)
        writer.line("user", {"role": "user", "content": "Run the build and tell me what it printed."})
        usage = {"input_tokens": 3, "cache_read_input_tokens": 20000, "output_tokens": 80}
        blocks = [{"type": "text", "text": _filler(message_mb, "said") if message_mb else "Running it."},
                  {"type": "tool_use", "id": "toolu_huge", "name": "Bash", "input": {"command": "make all", "description": "build"}}]
        for block in blocks:
            writer.line("assistant", {"model": MODEL, "id": "msg_huge", "type": "message", "role": "assistant", "content": [block],
                                      "stop_reason": None, "stop_sequence": None, "usage": usage}, requestId="req_huge")
        stdout = _filler(output_mb // 2, "out") if output_mb else "done\n"
        writer.line("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_huge", "content": stdout, "is_error": False}]},
                    toolUseResult={"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False})
        writer.line("assistant", {"model": MODEL, "id": "msg_end", "type": "message", "role": "assistant",
                                  "content": [{"type": "text", "text": "The build passed."}], "stop_reason": "end_turn",
                                  "stop_sequence": None, "usage": usage}, requestId="req_end")
    return path


def build_long_site(folder: Path, steps: int) -> tuple[Path, Path]:
    """A site of one generated session of `steps` steps under `folder`: (site root, its first page)."""
    from replay_site.pipeline import stages as pipeline

    write_long_claude_session(folder / "logs" / "long" / "long.jsonl", steps=steps)
    pipeline.build([folder / "logs" / "long"], folder / "site", pipeline.BuildOptions())
    entry = json.loads((folder / "site" / "sessions.json").read_text())["sessions"][0]
    assert entry["steps"] == steps
    return folder / "site", folder / "site" / entry["page"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--steps", type=int, default=10000)
    parser.add_argument("--progress", type=int, default=0, help="progress lines after each tool call")
    parser.add_argument("--huge-message", type=int, default=0, metavar="MB", help="instead: a short session with one assistant message of MB megabytes")
    parser.add_argument("--huge-output", type=int, default=0, metavar="MB", help="instead: a short session with one tool-result line of MB megabytes")
    args = parser.parse_args()
    if args.huge_message or args.huge_output:
        write_huge_line_session(args.out, args.huge_message, args.huge_output)
    else:
        write_long_claude_session(args.out, args.steps, args.progress)


if __name__ == "__main__":
    main()
