"""Deterministic synthetic corpora for tests/benchmark.py: realistic lines per
../shared/FORMATS.md (Claude Code with subagent files, gptme, Codex CLI), made from a seeded
random generator, never copied from real logs. Same arguments, same bytes."""
from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

WORDS = ("the build reads each log once and writes pages for every session while the index waits "
         "for summaries cache hash append test parser token model output error fix retry config "
         "module function class import return value file path line column branch commit diff").split()
COMMANDS = ("pytest -q", "ls -la src", "git status", "python -m build", "grep -rn TODO src", "cat setup.cfg")
MODELS = ("claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "claude-opus-4-1-20250805")


def _prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def _output(rng: random.Random, lines: int) -> str:
    return "\n".join(f"{rng.choice(('ok', 'PASSED', 'warning:', 'src/app.py:'))} {_prose(rng, rng.randint(4, 14))}" for _ in range(lines))


def _code(rng: random.Random, lines: int) -> str:
    return "\n".join(f"def f{i}(x):\n    return x * {rng.randint(1, 99)}  # {_prose(rng, 4)}" for i in range(lines))


class _Claude:
    """One Claude Code session file: user prompts, assistant turns split one line per content
    block (usage repeated, as Claude Code writes it), tool results with toolUseResult."""

    def __init__(self, rng: random.Random, session_id: str, cwd: str, start: datetime, agent: str | None = None):
        self.rng, self.session_id, self.cwd, self.clock, self.agent = rng, session_id, cwd, start, agent
        self.lines: list[str] = []
        self.parent: str | None = None
        self.serial = 0

    def _uuid(self) -> str:
        self.serial += 1
        return f"{self.session_id[:8]}-{(self.agent or '0000')[:4]}-4000-8000-{self.serial:012d}"

    def _line(self, kind: str, message: dict, **extra) -> str:
        self.clock += timedelta(seconds=self.rng.randint(1, 40))
        uuid = self._uuid()
        line = {"parentUuid": self.parent, "isSidechain": self.agent is not None, "userType": "external", "cwd": self.cwd,
                "sessionId": self.session_id, "version": "2.0.31", "gitBranch": "main", "type": kind, "message": message,
                "uuid": uuid, "timestamp": self.clock.strftime("%Y-%m-%dT%H:%M:%S.000Z"), **extra}
        if self.agent:
            line["agentId"] = self.agent
        self.parent = uuid
        self.lines.append(json.dumps(line))
        return uuid

    def user(self, text: str) -> None:
        self._line("user", {"role": "user", "content": text})

    def turn(self, model: str, tools: int) -> None:
        message_id = f"msg_{self._uuid().replace('-', '')}"
        usage = {"input_tokens": self.rng.randint(3, 40), "cache_creation_input_tokens": self.rng.randint(0, 4000),
                 "cache_read_input_tokens": self.rng.randint(10_000, 90_000), "output_tokens": self.rng.randint(40, 900),
                 "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}}
        usage["cache_creation"]["ephemeral_5m_input_tokens"] = usage["cache_creation_input_tokens"]
        blocks = [{"type": "text", "text": _prose(self.rng, self.rng.randint(20, 120))}]
        calls = []
        for index in range(tools):
            call_id = f"toolu_{message_id[4:20]}{index}"
            name = self.rng.choice(("Bash", "Read", "Edit"))
            arguments = {"Bash": {"command": self.rng.choice(COMMANDS), "description": _prose(self.rng, 5)},
                         "Read": {"file_path": f"{self.cwd}/src/mod{self.rng.randint(1, 30)}.py"},
                         "Edit": {"file_path": f"{self.cwd}/src/app.py", "old_string": "return x * 2", "new_string": "return x * 3"}}[name]
            blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": arguments})
            calls.append((call_id, name, arguments))
        for block in blocks:
            self._line("assistant", {"model": model, "id": message_id, "type": "message", "role": "assistant", "content": [block],
                                     "stop_reason": None, "stop_sequence": None, "usage": usage}, requestId=f"req_{message_id[4:]}")
        for call_id, name, arguments in calls:
            failed = self.rng.random() < 0.08
            if name == "Bash":
                text = ("Error: Exit code 1\n" if failed else "") + _output(self.rng, self.rng.randint(5, 60))
                result = text if failed else {"stdout": text, "stderr": "", "interrupted": False, "isImage": False}
            elif name == "Read":
                text = _code(self.rng, self.rng.randint(10, 80))
                result = {"type": "text", "file": {"filePath": arguments["file_path"], "content": text, "numLines": text.count("\n") + 1,
                                                   "startLine": 1, "totalLines": text.count("\n") + 1}}
            else:
                text = "The file has been updated."
                result = {"filePath": arguments["file_path"], "oldString": arguments["old_string"], "newString": arguments["new_string"],
                          "originalFile": _code(self.rng, 8), "userModified": False, "replaceAll": False,
                          "structuredPatch": [{"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 1,
                                               "lines": ["-    return x * 2", "+    return x * 3"]}]}
            content = [{"type": "tool_result", "tool_use_id": call_id, "content": text, **({"is_error": True} if failed else {})}]
            self._line("user", {"role": "user", "content": content}, toolUseResult=result)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def claude_corpus(folder: Path, sessions: int, subagents: int, turns: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    start = datetime(2026, 1, 5, 9, tzinfo=timezone.utc)
    for number in range(sessions):
        project = f"-home-dev-project{number % 12}"
        session_id = f"{rng.getrandbits(32):08x}-1a2b-4c3d-8e9f-{number:012d}"
        log = _Claude(rng, session_id, f"/home/dev/project{number % 12}", start + timedelta(hours=7 * number))
        for turn in range(turns):
            if turn % 6 == 0:
                log.user(_prose(rng, rng.randint(8, 40)))
            log.turn(rng.choice(MODELS), rng.randint(0, 3))
        target = folder / project / f"{session_id}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(log.text())
        if number < subagents:
            agent = f"{rng.getrandbits(28):07x}"
            child = _Claude(rng, session_id, log.cwd, log.clock, agent)
            child.user(_prose(rng, 20))
            for _ in range(max(2, turns // 4)):
                child.turn(MODELS[1], rng.randint(1, 2))
            path = folder / project / session_id / "subagents" / f"agent-{agent}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(child.text())


def claude_turn(rng: random.Random, log_path: Path) -> str:
    """Lines of one more turn for an existing Claude log (the 'append' scenario)."""
    first = json.loads(log_path.open().readline())
    log = _Claude(rng, first["sessionId"], first["cwd"], datetime(2026, 6, 1, tzinfo=timezone.utc))
    log.user(_prose(rng, 12))
    log.turn(MODELS[0], 1)
    return log.text()


def gptme_corpus(folder: Path, sessions: int, turns: int, seed: int = 12) -> None:
    rng = random.Random(seed)
    for number in range(sessions):
        clock = datetime(2026, 2, 1, 8) + timedelta(hours=5 * number)
        lines = [{"role": "system", "content": "You are gptme v0.35.1.", "timestamp": clock.isoformat(), "pinned": True, "hide": True}]
        for turn in range(turns):
            clock += timedelta(seconds=rng.randint(2, 60))
            if turn % 5 == 0:
                lines.append({"role": "user", "content": _prose(rng, 25), "timestamp": clock.isoformat()})
            command = rng.choice(COMMANDS)
            lines.append({"role": "assistant", "content": f"{_prose(rng, 40)}\n\n```shell\n{command}\n```\n", "timestamp": clock.isoformat(),
                          "metadata": {"model": "anthropic/claude-sonnet-4-5", "usage": {"input_tokens": rng.randint(100, 3000),
                                       "output_tokens": rng.randint(20, 600), "cache_read_tokens": rng.randint(0, 20000)}}})
            lines.append({"role": "system", "content": f"Ran command: `{command}`\n\n```stdout\n{_output(rng, rng.randint(3, 40))}\n```",
                          "timestamp": clock.isoformat()})
        target = folder / f"2026-02-{number % 28 + 1:02d}-session-{number}" / "conversation.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(json.dumps(line) + "\n" for line in lines))


def codex_corpus(folder: Path, sessions: int, turns: int, seed: int = 13) -> None:
    rng = random.Random(seed)
    for number in range(sessions):
        clock = datetime(2026, 3, 1, 8, tzinfo=timezone.utc) + timedelta(hours=3 * number)
        thread = f"0199{rng.getrandbits(28):07x}-0000-7000-8000-{number:012d}"
        stamp = lambda: clock.strftime("%Y-%m-%dT%H:%M:%S.000Z")  # noqa: E731
        lines = [{"timestamp": stamp(), "type": "session_meta", "payload": {"id": thread, "timestamp": stamp(), "cwd": "/home/dev/app",
                                                                           "originator": "codex_cli_rs", "cli_version": "0.46.0"}}]
        total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0, "total_tokens": 0}
        for turn in range(turns):
            clock += timedelta(seconds=rng.randint(2, 50))
            if turn % 5 == 0:
                lines.append({"timestamp": stamp(), "type": "turn_context", "payload": {"cwd": "/home/dev/app", "model": "gpt-5-codex"}})
                lines.append({"timestamp": stamp(), "type": "response_item", "payload": {"type": "message", "role": "user",
                              "content": [{"type": "input_text", "text": _prose(rng, 20)}]}})
            call_id = f"call_{number}_{turn}"
            lines.append({"timestamp": stamp(), "type": "response_item", "payload": {"type": "message", "role": "assistant",
                          "content": [{"type": "output_text", "text": _prose(rng, 30)}]}})
            lines.append({"timestamp": stamp(), "type": "response_item", "payload": {"type": "function_call", "name": "shell_command",
                          "arguments": json.dumps({"command": rng.choice(COMMANDS)}), "call_id": call_id}})
            lines.append({"timestamp": stamp(), "type": "response_item", "payload": {"type": "function_call_output", "call_id": call_id,
                          "output": f"Exit code: 0\nWall time: 0.4 seconds\nOutput:\n{_output(rng, rng.randint(3, 40))}"}})
            last = {"input_tokens": rng.randint(2000, 9000), "cached_input_tokens": rng.randint(0, 1500), "output_tokens": rng.randint(20, 500),
                    "reasoning_output_tokens": rng.randint(0, 200), "total_tokens": 0}
            last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
            total = {key: total[key] + last[key] for key in total}
            lines.append({"timestamp": stamp(), "type": "event_msg", "payload": {"type": "token_count",
                          "info": {"total_token_usage": total, "last_token_usage": last, "model_context_window": 272000}}})
        target = folder / "2026" / "03" / f"{number % 28 + 1:02d}" / f"rollout-2026-03-01T08-00-00-{thread}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(json.dumps(line) + "\n" for line in lines))


# sessions, subagent files and turns per session: medium Claude is ~200 sessions + 62
# subagent files, ~94 MiB (the corpus issue 11 measures).
SIZES = {
    "small": {"claude": (12, 4, 40), "gptme": (6, 30), "codex": (6, 30)},
    "medium": {"claude": (200, 62, 44), "gptme": (60, 200), "codex": (60, 200)},
    "large": {"claude": (2300, 700, 44), "gptme": (300, 400), "codex": (300, 400)},
}


def make_corpus(folder: Path, size: str, formats: list[str]) -> None:
    plan = SIZES[size]
    if "claude" in formats:
        claude_corpus(folder / "claude", *plan["claude"])
    if "gptme" in formats:
        gptme_corpus(folder / "gptme", *plan["gptme"])
    if "codex" in formats:
        codex_corpus(folder / "codex", *plan["codex"])
