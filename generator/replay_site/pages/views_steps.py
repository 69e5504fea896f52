"""Page view models of steps and tool calls: every figure formatted once, every text capped.

Templates print these and nothing else. A text longer than the page's limit is cut on the
page and written whole to a side file beside it (`SideFiles`), so a page stays small
whatever the log holds; nested data deeper than MAX_DEPTH is cut with a visible marker.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from replay_site import ansi
from replay_site.ansi import Span
from replay_site.diffs import DiffRow, DiffView, diff_view
from replay_site.figures.ledger import command_title
from replay_site.model import Detail, Image, Step, TodoItem, ToolCall, Variable
from replay_site.pages import formatting, highlight, paging
from replay_site.pages.formatting import CostText

# Any one text (prose, output, arguments, diff...) longer than this is cut on a site page:
# its first FIELD_LIMIT - TAIL_SHOWN characters and its last TAIL_SHOWN are shown (the end of an
# output is where its verdict is), the middle is elided and the full text goes to a side file.
# Search indexes no more than these ends (search.HEAD, search.TAIL), so a hit is always shown.
FIELD_LIMIT = 50_000
TAIL_SHOWN = 10_000
# Data nested deeper than this is shown up to here, then "… nested deeper than N".
MAX_DEPTH = 20
# An argument value longer than this, or on several lines, is shown in a block.
INLINE_VALUE = 120
# A command's title (its description) on the call's head, this long at most.
TITLE_CHARS = 200
# An output with more lines or characters than these starts folded.
FOLD_LINES, FOLD_CHARS = 15, 1500


def _cut(runs: list[Span], limit: int) -> list[Span]:
    """The first `limit` characters of styled runs, styles kept."""
    kept, left = [], limit
    for run in runs:
        if left <= 0:
            break
        kept.append(run if len(run.text) <= left else Span(run.text[:left], run.css, run.href))
        left -= len(run.text)
    return kept


def _last(runs: list[Span], limit: int) -> list[Span]:
    """The last `limit` characters of styled runs, styles kept."""
    kept, left = [], limit
    for run in reversed(runs):
        if left <= 0:
            break
        kept.append(run if len(run.text) <= left else Span(run.text[-left:], run.css, run.href))
        left -= len(run.text)
    return kept[::-1]


class SideFiles:
    """Full texts cut on the page, as files beside it: `sessions/<slug>/outputs/<name>.txt`
    (`files`, by that path; `named`, by name)."""

    def __init__(self, slug: str, limit: int | None):
        self.slug = slug
        self.limit = limit
        self.files: dict[str, str] = {}
        self.named: dict[str, str] = {}

    def cap(self, text: str, name: str, page_path: str) -> tuple[str, str, str | None]:
        """(the beginning the page shows, its end ("" when whole), link to the full text or None)."""
        if self.limit is None or len(text) <= self.limit:
            return text, "", None
        self.add(name, text)
        tail = min(TAIL_SHOWN, self.limit // 5)
        return text[: self.limit - tail], text[-tail:], paging.relative(self._path(name), page_path)

    def add(self, name: str, text: str) -> None:
        self.files[self._path(name)] = text
        self.named[name] = text

    def _path(self, name: str) -> str:
        return f"sessions/{self.slug}/outputs/{name}.txt"


@dataclass
class TextView:
    """A capped text field: shown as markdown, as plain paragraphs, or as preformatted text."""

    text: str
    full_chars: int
    href: str | None = None
    markdown: bool = False
    paragraphs: list[str] = field(default_factory=list)
    simple: list | None = None  # highlight.simple_markdown's parts of a markdown text, when it is that simple
    tail: str = ""  # the end of a cut text, shown after the elided middle
    tail_paragraphs: list[str] = field(default_factory=list)
    tail_simple: list | None = None
    elided: str = ""  # "40,000 characters elided", when cut

    @property
    def cut(self) -> bool:
        return self.href is not None


def text_view(text: str, name: str, side: SideFiles, page_path: str, prose: bool = False) -> TextView:
    shown, tail, href = side.cap(text, name, page_path)
    view = TextView(shown, len(text), href, tail=tail, elided=_elided(text, shown, tail))
    if prose:
        view.markdown = highlight.has_markdown(shown) or highlight.has_markdown(tail)
        if not view.markdown:
            view.paragraphs = highlight.paragraphs(shown)
            view.tail_paragraphs = highlight.paragraphs(tail) if tail else []
        else:
            view.simple = highlight.simple_markdown(shown)
            view.tail_simple = highlight.simple_markdown(tail) if tail else None
    return view


def _elided(text: str, head: str, tail: str) -> str:
    return f"{formatting.counted(len(text) - len(head) - len(tail), 'character')} elided" if tail else ""


@dataclass
class ArgRow:
    key: str
    value: str
    block: bool  # shown in a <pre>, not inline
    href: str | None = None  # the full value, when cut
    note: str = ""  # said instead of the value (e.g. "the new file, shown below")
    tail: str = ""  # the end of a cut value
    elided: str = ""


@dataclass
class OutputView:
    spans: list[Span]
    full_chars: int
    shown_chars: int
    href: str | None
    failed: bool
    open: bool
    tail_spans: list[Span] = field(default_factory=list)  # the end of a cut output: its verdict
    elided: str = ""


@dataclass
class LinkView:
    title: str
    href: str
    figures: str = ""  # steps, calls, errors and cost of a linked child session


@dataclass
class CallView:
    anchor: str
    name: str
    title: str  # what the agent said the command was for (figures.ledger.command_title), or ""
    failed: bool
    exit_code: int | None
    duration: str | None
    missing_result: bool
    orphan: bool
    code: TextView | None = None
    language: str | None = None
    highlight: bool = False
    args_rows: list[ArgRow] = field(default_factory=list)
    args_text: TextView | None = None
    args_folded: bool = False  # an edit's or todo list's arguments repeat what is shown below
    changes: list[DiffView] = field(default_factory=list)
    change_links: list[str | None] = field(default_factory=list)  # full diff, when cut
    todos: list[tuple[str, TodoItem]] = field(default_factory=list)  # (check mark, item)
    images: list[Image] = field(default_factory=list)
    child: LinkView | None = None
    child_missing: str | None = None  # a subagent id whose log is not in the site
    published: LinkView | None = None  # a page the call published (href "" when not a web link)
    output: OutputView | None = None
    output_empty: bool = False


@dataclass
class StepView:
    number: int
    kind: str
    css: str
    title: str
    time: str | None
    model: str | None
    duration: str | None
    usage: str | None
    cost: CostText | None
    running: CostText | None
    reward: str | None
    has_error: bool
    tools: list[str]
    collapsed: bool
    prose: list[tuple[str, TextView]]  # the texts the page shows, as ("thinking" | "text" | "context", text)
    error: TextView | None
    images: list[Image]
    calls: list[CallView]
    variables: list[tuple[Variable, TextView]]  # (name, type, changed; its capped value)
    variables_changed: int
    memory_notes: list[TextView]
    details: list[tuple[Detail, TextView, bool]]  # (label and language, capped text, highlighted)
    checkpoint: str | None
    children: list[LinkView]
    children_missing: list[str]


def bounded(value: Any, depth: int = 0) -> Any:
    """`value` with anything nested deeper than MAX_DEPTH replaced by a visible marker (the
    recursion stops at MAX_DEPTH, whatever the input's depth)."""
    if isinstance(value, (dict, list)) and depth >= MAX_DEPTH:
        return f"… nested deeper than {MAX_DEPTH}"
    if isinstance(value, dict):
        return {str(key): bounded(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [bounded(item, depth + 1) for item in value]
    return value


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(bounded(value, 1), indent=2, ensure_ascii=False, default=str)


def _arg_rows(arguments: dict, name: str, side: SideFiles, page_path: str, shown_elsewhere: set[str]) -> list[ArgRow]:
    rows = []
    for index, (key, value) in enumerate(arguments.items(), start=1):
        text = _value_text(value)
        if isinstance(value, str) and value.strip() and value.strip() in shown_elsewhere:
            rows.append(ArgRow(str(key), "", False, note="shown below"))
            continue
        shown, tail, href = side.cap(text, f"{name}-arg-{index}", page_path)
        rows.append(ArgRow(str(key), shown, "\n" in shown or len(shown) > INLINE_VALUE or bool(tail), href,
                           tail=tail, elided=_elided(text, shown, tail)))
    return rows


def _output(call: ToolCall, name: str, side: SideFiles, page_path: str) -> OutputView:
    # Escapes are parsed on the whole text before any cut, so a cut never splits a sequence;
    # the page and the side file then show the same characters, the page with its colours.
    runs = ansi.spans(call.output or "")
    text = "".join(run.text for run in runs)
    shown, tail, href = side.cap(text, name, page_path)
    folded = shown.count("\n") > FOLD_LINES or len(text) > FOLD_CHARS
    spans = runs if len(shown) == len(text) else _cut(runs, len(shown))
    return OutputView(spans, len(text), len(shown) + len(tail), href, call.is_error, call.is_error or not folded,
                      _last(runs, len(tail)) if tail else [], _elided(text, shown, tail))


def call_view(call: ToolCall, step: int, index: int, side: SideFiles, page_path: str, children: dict[str, LinkView]) -> CallView:
    name = f"{step}-{index}"
    view = CallView(f"step-{step}-call-{index}", call.name, formatting.first_line(command_title(call), TITLE_CHARS), call.is_error, call.exit_code,
                    formatting.duration(call.duration_s) if call.duration_s is not None else None,
                    call.missing_result, call.orphan)
    changes = [diff_view(change) for change in call.changes]
    new_files = {change.new_file_text.strip() for change in changes if change.new_file_text}
    if call.code and call.code.strip() not in new_files:
        view.code = text_view(call.code, f"{name}-code", side, page_path)
        view.language = call.language
        # a one-line command reads as well plain, and highlighting costs more than the rest of its call
        view.highlight = "\n" in call.code.strip() and not view.code.cut and len(view.code.text) <= highlight.HIGHLIGHT_LIMIT
    elif isinstance(call.arguments, dict) and call.arguments:
        view.args_rows = _arg_rows(call.arguments, name, side, page_path, new_files)
    elif call.arguments:
        view.args_text = text_view(_value_text(call.arguments), f"{name}-args", side, page_path)
    view.args_folded = bool(call.changes or call.todos) and not view.code
    for number, (change, shown) in enumerate(zip(call.changes, changes), start=1):
        view.change_links.append(_cap_diff(change.diff, shown, f"{name}-diff-{number}", side, page_path))
    view.changes = changes
    view.todos = [(_TODO_MARKS.get(todo.status, "☐"), todo) for todo in call.todos]
    view.images = call.images
    if call.child_session_id:
        view.child = children.get(call.child_session_id)
        view.child_missing = None if view.child else call.child_session_id
    if call.url:
        view.published = LinkView(call.url, call.url if highlight.is_linkable(call.url) else "")
    if call.output == "":
        view.output_empty = True
    elif call.output is not None:
        view.output = _output(call, name, side, page_path)
    return view


_TODO_MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐"}


def _cap_diff(diff: str, view: DiffView, name: str, side: SideFiles, page_path: str) -> str | None:
    """Keep the rows of a long diff that fit the limit; the whole diff goes to a side file.
    The +N/−M counts stay those of the whole diff."""
    shown, tail, href = side.cap(diff, name, page_path)
    if href is None:
        return None
    head_rows, tail_rows = _rows_within(view.rows, len(shown)), _rows_within(view.rows[::-1], len(tail))[::-1]
    view.rows = head_rows + [DiffRow("hunk", None, None, _elided(diff, shown, tail))] + tail_rows
    if view.new_file_text is not None:  # the file's lines kept above: its gutter numbers them
        view.new_file_text = "\n".join(row.text[1:] for row in view.rows if row.kind == "add")
    return href


def _rows_within(rows: list[DiffRow], budget: int) -> list[DiffRow]:
    kept = []
    for row in rows:
        budget -= len(row.text) + 1
        if budget < 0:
            break
        kept.append(row)
    return kept


def step_view(step: Step, side: SideFiles, page_path: str, local_time: bool, running: CostText | None,
              children: dict[str, LinkView]) -> StepView:
    number = step.number
    calls = [call_view(call, number, index, side, page_path, children) for index, call in enumerate(step.tool_calls, start=1)]
    linked = {call.child_session_id for call in step.tool_calls}
    extra_children = [cid for cid in step.child_session_ids if cid not in linked]
    has_error = step.error_count > 0
    css = f"step kind-{step.kind}" + (" has-error" if has_error else "") + (" collapsed-step" if step.collapsed else "")
    reward = None
    if step.reward is not None:
        reward = f"reward {formatting.number(step.reward)}"
        if step.cumulative_reward is not None:
            reward += f" (Σ {formatting.number(step.cumulative_reward)})"
    changed = sum(1 for variable in step.variables if variable.changed)
    text = text_view(step.text, f"{number}-text", side, page_path, prose=True) if step.text else None
    thinking = text_view(step.thinking, f"{number}-thinking", side, page_path, prose=True) if step.thinking else None
    return StepView(
        number=number, kind=step.kind, css=css, title=step.title or "",
        time=formatting.when(step.timestamp, local_time) if step.timestamp else None,
        model=step.model,
        duration=formatting.duration(step.duration_s) if step.duration_s is not None else None,
        usage=formatting.usage_line(step.usage) if step.usage else None,
        cost=formatting.step_cost(step.cost), running=running, reward=reward, has_error=has_error,
        tools=[call.name for call in step.tool_calls], collapsed=step.collapsed,
        prose=_prose(step, text, thinking),
        error=text_view(step.error, f"{number}-error", side, page_path) if step.error else None,
        images=step.images, calls=calls, variables_changed=changed,
        variables=[(variable, text_view(variable.value, f"{number}-variable-{index}", side, page_path))
                   for index, variable in enumerate(step.variables, start=1)],
        memory_notes=[text_view(note, f"{number}-memory-{index}", side, page_path)
                      for index, note in enumerate(step.memory_notes, start=1)],
        details=[_detail(detail, f"{number}-detail-{index}", side, page_path) for index, detail in enumerate(step.details, start=1)],
        checkpoint=step.checkpoint,
        children=[children[cid] for cid in extra_children if cid in children],
        children_missing=[cid for cid in extra_children if cid not in children],
    )


def _prose(step: Step, text: TextView | None, thinking: TextView | None) -> list[tuple[str, TextView]]:
    """A step folded on the page (context, events, abandoned branches) shows its text alone,
    in a fold when collapsed; a user step its text; any other its thinking, then its text."""
    if step.collapsed or step.kind in ("context", "event"):
        return [("context" if step.collapsed else "text", text)] if text else []
    shown = [("thinking", thinking)] if thinking and step.kind != "user" else []
    return shown + [("text", text)] if text else shown


def _detail(detail: Detail, name: str, side: SideFiles, page_path: str) -> tuple[Detail, TextView, bool]:
    """A labelled block; raw JSON stays plain (its lexer costs more than the page gains)."""
    text = text_view(detail.text, name, side, page_path)
    colour = bool(detail.language) and detail.language != "json" and not text.cut and len(text.text) <= highlight.HIGHLIGHT_LIMIT
    return detail, text, colour


class StepViews(Sequence):
    """The views of a page's steps (step_view), made when they are first asked for."""

    def __init__(self, steps: list[Step], make: Callable[[Step, CostText | None], StepView], running: list[CostText | None]) -> None:
        self._steps, self._make, self._running = steps, make, running
        self._views: list[StepView] | None = None

    def _made(self) -> list[StepView]:
        if self._views is None:
            self._views = [self._make(step, running) for step, running in zip(self._steps, self._running)]
        return self._views

    def __len__(self) -> int:
        return len(self._steps)

    def __getitem__(self, index):
        return self._made()[index]

    def __iter__(self) -> Iterator[StepView]:
        return iter(self._made())


@dataclass
class StepEntry:
    """A step in the page's navigator (its label: `#12 assistant · Bash, Read · ✗ error · ≈ $0.0123`),
    made from the step itself, not from its view (StepViews)."""

    number: int
    kind: str
    has_error: bool


def nav_entry(step: Step) -> tuple[StepEntry, str]:
    """A step's navigator entry and label."""
    has_error = step.error_count > 0
    parts = [f"#{step.number} {step.kind}"]
    if step.tool_calls:
        parts.append(", ".join(dict.fromkeys(call.name for call in step.tool_calls)))
    if has_error:
        parts.append("✗ error")
    if step.cost is not None:
        parts.append(formatting.step_cost(step.cost).text)
    return StepEntry(step.number, step.kind, has_error), " · ".join(parts)
