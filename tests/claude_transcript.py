"""A Claude Code transcript written by a test, turn by turn (FORMATS.md (e)): for tests that
place texts in chosen fields of a log."""
from __future__ import annotations

import json


class ClaudeTranscript:
    def __init__(self, session_id: str, title: str | None = None) -> None:
        self.session_id = session_id
        self.lines: list[dict] = [{"type": "custom-title", "customTitle": title, "sessionId": session_id}] if title else []
        self.parent: str | None = None

    def add(self, role: str, content, number: int) -> None:
        """One entry, chained to the one before; `number` makes its uuid and its time."""
        uuid = f"b0000000-0000-4000-8000-{number:012d}"
        entry = {"type": role, "uuid": uuid, "parentUuid": self.parent, "sessionId": self.session_id, "cwd": "/home/dev/app",
                 "timestamp": f"2026-01-01T{number // 3600:02d}:{number // 60 % 60:02d}:{number % 60:02d}.000Z",
                 "version": "2.0.31", "message": {"role": role, "content": content}}
        if role == "assistant":
            entry["message"].update(model="claude-sonnet-4-5-20250929", id=f"msg_{number}", type="message",
                                    usage={"input_tokens": 1, "output_tokens": 1})
        self.lines.append(entry)
        self.parent = uuid

    def say(self, text: str, number: int, thinking: bool = False) -> None:
        """An assistant turn of prose, or of thinking."""
        block = {"type": "thinking", "thinking": text, "signature": "s"} if thinking else {"type": "text", "text": text}
        self.add("assistant", [block], number)

    def text(self) -> str:
        return "".join(json.dumps(line) + "\n" for line in self.lines)
