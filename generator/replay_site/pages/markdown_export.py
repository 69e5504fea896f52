"""The Markdown export of a session or part of one: what session.md prints, every log text
already made safe for Markdown here (the template is not HTML-escaped).

Log text is never trusted to be Markdown: prose is backslash-escaped, so a log cannot add
links, images or raw HTML to a bug report; code, outputs and diffs go in fenced blocks whose
fence is longer than any run of backticks inside them.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from replay_site import ansi
from replay_site.figures.failures import what_went_wrong
from replay_site.figures.summary import SessionSummary
from replay_site.model import Session, Step, ToolCall
from replay_site.pages import formatting, views_audit
from replay_site.pages.views_steps import bounded

# What starts markup anywhere in a line (emphasis, code, links, raw HTML, entities, tables),
# and what starts it only at the start of a line (headings, quotes, lists, setext rules).
_INLINE = re.compile(r"([\\`*_\[\]<>|~&])")
_LINE_START = re.compile(r"^(\s*\d*)([-+#>=.)])", re.MULTILINE)
_BACKTICKS = re.compile(r"`+")


def plain(text: str) -> str:
    """Log text shown as written, with nothing in it read as Markdown or HTML: the few
    characters that would start markup are backslash-escaped, the rest left readable."""
    return _LINE_START.sub(r"\1\\\2", _INLINE.sub(r"\\\1", text))


def fenced(text: str, language: str = "") -> str:
    """A fenced code block holding `text` verbatim."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    info = re.sub(r"[^A-Za-z0-9_+-]", "", language or "")
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"


@dataclass
class CallBlock:
    heading: str  # "**Bash** ✗ exit 1" (safe Markdown)
    blocks: list[str] = field(default_factory=list)  # fenced blocks


@dataclass
class StepBlock:
    heading: str
    text: str  # escaped prose ("" when none)
    blocks: list[str]  # fenced: thinking, error
    calls: list[CallBlock]


@dataclass
class MarkdownDocument:
    title: str
    facts: list[tuple[str, str]]
    part: str | None
    wrong: str | None  # the verdict of the what-went-wrong card, escaped
    steps: list[StepBlock]


def _call(call: ToolCall) -> CallBlock:
    mark = "✗" if call.is_error or call.exit_code not in (None, 0) else "✓"
    code = f" exit {call.exit_code}" if call.exit_code is not None else ""
    block = CallBlock(f"**{plain(call.name)}** {mark}{code}")
    if call.code:
        block.blocks.append(fenced(call.code, call.language or ""))
    elif call.arguments:
        block.blocks.append(fenced(json.dumps(bounded(call.arguments), indent=2, ensure_ascii=False, default=str), "json"))
    for change in call.changes:
        block.blocks.append(fenced(f"--- {change.path}\n+++ {change.new_path or change.path}\n{change.diff}", "diff"))
    if call.output:
        block.blocks.append(fenced(ansi.plain(call.output)))
    if call.images:
        block.blocks.append(_images_left_out(len(call.images)))
    return block


def _images_left_out(count: int) -> str:
    """Images stay out of Markdown (a tracker would not show a data: URI); the note says so."""
    return f"*{formatting.counted(count, 'image')} not included in Markdown: see the HTML export.*"


def _step(step: Step, local_time: bool) -> StepBlock:
    parts = [f"#{step.number}", step.kind]
    if step.timestamp:
        parts.append(formatting.when(step.timestamp, local_time))
    if step.model:
        parts.append(plain(step.model))
    cost = formatting.step_cost(step.cost)
    if cost is not None:
        parts.append(plain(cost.text))
    blocks = []
    if step.thinking:
        blocks.append("Thinking:\n\n" + fenced(step.thinking))
    if step.error:
        blocks.append("Error:\n\n" + fenced(step.error))
    if step.images:
        blocks.append(_images_left_out(len(step.images)))
    text = step.text or step.title or ""
    return StepBlock(" · ".join(parts), plain(text), blocks, [_call(call) for call in step.tool_calls])


def document(session: Session, summary: SessionSummary, part: str | None) -> MarkdownDocument:
    facts = [
        ("Agent", plain(summary.agent)),
        ("Outcome", formatting.outcome(summary.outcome)[1]),
        ("Models", plain(", ".join(summary.models) or "—")),
        ("Started", formatting.when(session.started_at, session.local_time)),
        ("Steps", f"{summary.steps:,}"),
        ("Errors", f"{summary.errors:,}"),
        ("Cost", plain(formatting.total_cost(session.cost).text)),
        ("Source", plain(session.source)),
    ]
    wrong = what_went_wrong(session, summary.outcome)
    card = views_audit.card_view(wrong, lambda number: "") if wrong else None
    verdict = plain(f"{card.verdict} {card.what}: {card.action}" if card.step else card.verdict) if card else None
    return MarkdownDocument(plain(summary.title), facts, part, verdict,
                            [_step(step, session.local_time) for step in session.steps])
