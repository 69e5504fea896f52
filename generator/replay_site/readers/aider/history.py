"""Aider's chat history file cut into blocks (aider/io.py: `append_chat_history`).

Aider appends to one Markdown file per project: `# aider chat started at <local time>` opens
each run; the user's input is written `#### <line>` (each line, ending in a Markdown line
break, two spaces); Aider's own output (`tool_output`, `tool_error`, its questions and the
answers) `> <line>` with the same line break; the model's reply as it is. So a line is the
user's when it starts `#### `, Aider's when it starts `>` and ends with the line break, and
the model's otherwise (a reply's own quotes have no trailing line break).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

STARTED = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$")


@dataclass
class Block:
    kind: str  # "user", "aider" or "model"
    line: int  # where it starts (1-based)
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip("\n")


@dataclass
class Run:
    """One `aider chat started` section."""

    started: str | None
    line: int
    blocks: list[Block] = field(default_factory=list)
    lines: int = 0


def _kind(line: str) -> tuple[str, str]:
    """A line's block kind and its text without Aider's markup."""
    if line.startswith("#### ") or line.rstrip() == "####":
        return "user", line[5:].rstrip()
    if line.startswith(">") and line.endswith("  "):
        return "aider", line[1:].strip()
    if line.startswith(">") and line.strip() == ">":
        return "aider", ""
    return "model", line


def runs(text: str) -> Iterator[Run]:
    """The runs of a history file, each cut into blocks of one kind."""
    run = Run(None, 1)
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        started = STARTED.match(line)
        if started:
            if run.lines or run.blocks:
                yield run
            run = Run(started.group(1), number, lines=1)
            continue
        run.lines += 1
        kind, content = _kind(line)
        if kind == "model" and not line.strip():
            if run.blocks and run.blocks[-1].kind == "model":
                run.blocks[-1].lines.append("")
            continue  # blank lines only separate Aider's and the user's blocks
        if run.blocks and run.blocks[-1].kind == kind:
            run.blocks[-1].lines.append(content)
        else:
            run.blocks.append(Block(kind, number, [content]))
    if run.lines or run.blocks:
        yield run
