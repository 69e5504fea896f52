"""An Aider run's blocks into steps.

The model's edits are SEARCH/REPLACE blocks in its reply (the `diff` edit format, Aider's
default for most models): each is a call of `edit` on its file, shown as a diff; Aider then
says `Applied edit to <file>`, or that the reply did not conform (the edits failed). After
each model response Aider reports its tokens (`Tokens: 2.3k sent, 1.1k cache write, 12k
cache hit, 312 received.`) and cost (`Cost: $0.02 message, $0.31 session.`): the `message`
figures are that response's alone (reset after each report); the session figure is a running
total and is not used. Aider writes counts of 1,000 and more rounded (2.3k, 12k): they are
read as written, so they are as exact as the log. `sent` holds the cache reads and writes.
Commands the user ran (`/run`, `!`) show as Aider's `Running <command>` and their output.
"""
from __future__ import annotations

import re

from replay_site.diffs import change_from_texts
from replay_site.model import Cost, Session, Step, ToolCall, Usage
from replay_site.readers.aider.history import Block, Run

TOKENS = re.compile(r"^Tokens: (?P<sent>[\d.]+k?) sent(?:, (?P<write>[\d.]+k?) cache write)?"
                    r"(?:, (?P<hit>[\d.]+k?) cache hit)?, (?P<received>[\d.]+k?) received\.")
COST = re.compile(r"Cost: \$(?P<message>[\d.]+) message, \$[\d.]+ session\.")
MODEL = re.compile(r"^(?:Main model|Model): (\S+)")
VERSION = re.compile(r"^Aider v(\S+)")
APPLIED = re.compile(r"^Applied edit to (.+)$")
RUNNING = re.compile(r"^Running (.+)$")
EDIT = re.compile(r"^(?P<path>[^\n`]+)\n```[^\n]*\n<{5,9} SEARCH\n(?P<old>.*?)\n?={5,9}\n(?P<new>.*?)\n?>{5,9} REPLACE\n```",
                  re.DOTALL | re.MULTILINE)
FAILED_EDITS = ("The LLM did not conform to the edit format", "SearchReplaceNoExactMatch")


def tokens(value: str | None) -> int:
    """A count as Aider writes it: 312, 2.3k, 12k."""
    if not value:
        return 0
    try:
        return round(float(value[:-1]) * 1000) if value.endswith("k") else int(float(value))
    except ValueError:
        return 0


def _edits(text: str) -> list[ToolCall]:
    calls = []
    for found in EDIT.finditer(text):
        path, old, new = found.group("path").strip(), found.group("old"), found.group("new")
        call = ToolCall("edit", arguments={"path": path})
        call.changes = [change_from_texts(path, old + "\n" if old else None, new + "\n" if new else "")]
        calls.append(call)
    return calls


class Builder:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.model: str | None = None
        self.last_model_step: Step | None = None
        self.pending_edits: list[ToolCall] = []
        self.last_run: ToolCall | None = None

    def run(self, run: Run) -> None:
        for block in run.blocks:
            self.session.count_record(f"{block.kind} lines", lines=len(block.lines))
            if block.kind == "user":
                self.last_run = None
                self.session.steps.append(Step("user", text=block.text))
            elif block.kind == "model":
                self._model(block)
            else:
                self._aider(block)
        for call in self.pending_edits:  # no word from Aider on them: the run ended
            call.missing_result = True

    def _model(self, block: Block) -> None:
        step = Step("assistant", model=self.model, text=block.text, tool_calls=_edits(block.text))
        self.pending_edits = list(step.tool_calls)
        self.last_model_step = step
        self.last_run = None
        self.session.steps.append(step)

    def _aider(self, block: Block) -> None:
        """Aider's lines: figures and edit results join the model's step; the rest is shown
        as one folded step of Aider's output."""
        shown: list[str] = []
        for line in block.lines:
            if self._figures(line) or self._edit_result(line):
                continue
            if version := VERSION.match(line):
                self.session.agent_version = version.group(1)
            if model := MODEL.match(line):
                self.model = model.group(1)
            if running := RUNNING.match(line):
                self.last_run = ToolCall("run", code=running.group(1), language="bash", output="")
                self.session.steps.append(Step("user", title="Command run by the user", tool_calls=[self.last_run]))
                continue
            if self.last_run is not None and line.startswith("Add command output to the chat?"):
                self.last_run = None  # the command's output ends with Aider's question
            elif self.last_run is not None:
                self.last_run.output = "\n".join(filter(None, (self.last_run.output, line)))
                continue
            shown.append(line)
        text = "\n".join(shown).strip()
        if text:
            first = text.splitlines()[0]
            self.session.steps.append(Step("context", title=f"Aider: {first[:80]}", text=text, collapsed=True))

    def _figures(self, line: str) -> bool:
        step = self.last_model_step
        found = TOKENS.match(line)
        if found and step is not None:
            write, hit = tokens(found.group("write")), tokens(found.group("hit"))
            step.usage = Usage(input=max(0, tokens(found.group("sent")) - write - hit), output=tokens(found.group("received")),
                               cache_read=hit, cache_write_5m=write)
        cost = COST.search(line)
        if cost and step is not None and float(cost.group("message")) > 0:
            step.cost = Cost(float(cost.group("message")), "log")
        return bool(found or (cost and line.startswith("Cost:")))

    def _edit_result(self, line: str) -> bool:
        applied = APPLIED.match(line)
        if applied:  # once per file, for all of its edits
            path = applied.group(1).strip()
            for call in [call for call in self.pending_edits if call.arguments and call.arguments.get("path") == path]:
                call.output = line
                self.pending_edits.remove(call)
            return True
        if line.startswith(FAILED_EDITS):
            for call in self.pending_edits:  # the file was left as it was
                call.is_error, call.output, call.changes = True, line, []
            self.pending_edits = []
        return False
