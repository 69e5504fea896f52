"""Plain-text views of the model for the terminal: the timeline, the session list, budgets."""
from __future__ import annotations

from dataclasses import dataclass

from replay_site.figures.compare import Comparison
from replay_site.figures.inputs import unknown_by_version
from replay_site.figures.summary import cost_usd, outcome
from replay_site.model import CostTotal, Problem, Session, Step
from replay_site.pages.formatting import cost_total, money, step_cost, when
from replay_site.pages.formatting import outcome as outcome_label


def format_check(sessions: list[Session], problems: list[Problem], fields: list[str] = (),
                 first_seen: dict[tuple[str, str], str] | None = None) -> list[str]:
    """`formats --check`: the record kinds no reader knows, by producer version (each with the
    file and line it is first seen at), the fields that do not fit their kind (load.field_drift)
    and the files skipped; empty when every line of every log was understood."""
    first_seen = first_seen or {}
    lines = []
    for (producer, version), kinds in unknown_by_version(sessions).items():
        listed = ", ".join(f"{kind} ({count:,}{', first at ' + first_seen[producer, kind] if (producer, kind) in first_seen else ''})"
                           for kind, count in kinds.items())
        lines.append(f"{producer} {version or '(version not recorded)'}: unknown record kinds: {listed}")
    lines.extend(fields)
    lines.extend(f"skipped: {problem.path}: {problem.message}" for problem in problems if problem.kind == "skipped_file")
    return lines


def _cut(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rstrip() + f"… [{len(text) - limit} more characters]"


def _cut_keeping_end(text: str, limit: int) -> str:
    """The end of a text (a failed command's output says what failed last: the assertion, the
    traceback's last line), what is left out before it counted."""
    text = text.strip()
    return text if len(text) <= limit else f"[{len(text) - limit} more characters] …" + text[len(text) - limit:].lstrip()


def _step_cost(step: Step) -> str:
    cost = step_cost(step.cost)
    return cost.text if cost else "-"


def timeline(session: Session, max_prose: int = 400, max_output: int = 300) -> str:
    """One block per step, like `[Step 3 / 2026-06-21 00:45:06 / model / $0.0073]`."""
    lines = [f"Session timeline — {len(session.steps)} steps, total cost: {cost_total(session.cost)}",
             f"{session.title or session.id} ({session.format}, {session.source})", ""]
    for step in session.steps:
        stamp = when(step.timestamp, session.local_time) if step.timestamp else "-"
        lines.append(f"[Step {step.number} / {stamp} / {step.model or step.kind} / {_step_cost(step)}]")
        if step.title:
            lines.append(f"  {step.title}")
        if step.text and not step.collapsed:
            lines.extend("  " + line for line in _cut(step.text, max_prose).splitlines())
        if step.error:
            lines.append("  ✗ error: " + _cut(step.error, max_output).replace("\n", "\n    "))
        for call in step.tool_calls:
            mark = "⊘ declined by the user:" if call.declined else "✗" if call.is_error else "✓"
            head = (call.code or (str(call.arguments) if call.arguments else "")).strip().splitlines()
            exit_code = f" (exit {call.exit_code})" if call.exit_code is not None else ""
            lines.append(f"  {mark} {call.name}{exit_code}: {head[0] if head else ''}"[:200])
            if call.output:
                failed = call.is_error or call.exit_code not in (None, 0)
                lines.extend("      " + line for line in (_cut_keeping_end if failed else _cut)(call.output, max_output).splitlines())
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


@dataclass
class BudgetBreach:
    session: Session
    cost: CostTotal
    errors: int
    reasons: list[str]

    def as_dict(self) -> dict:
        return {
            "id": self.session.id,
            "title": self.session.title,
            "source": self.session.source,
            "cost_usd": cost_usd(self.cost),
            "cost_is_lower_bound": self.cost.is_lower_bound,
            "errors": self.errors,
            "reasons": self.reasons,
        }


def budget_breaches(sessions: list[Session], max_cost: float | None, max_errors: int | None) -> list[BudgetBreach]:
    """Top-level sessions over budget, each judged with its subagents rolled up once."""
    breaches = []
    for session in sessions:
        if session.parent_id and session.relation == "subagent":
            continue  # judged as part of its parent
        cost = session.cost_with_children
        errors = session.error_count + sum(c.error_count for c in session.rolled_up_children())
        reasons = []
        if max_cost is not None and cost.usd > max_cost:
            reasons.append(f"cost {cost_total(cost)} > {money(max_cost)}")
        if max_errors is not None and errors > max_errors:
            reasons.append(f"{errors} errors > {max_errors}")
        if reasons:
            breaches.append(BudgetBreach(session, cost, errors, reasons))
    return breaches


# The session list's columns: the title takes what the others leave of the terminal's width.
LIST_COLUMNS = ("id", "title", "start", "agent", "outcome", "steps", "cost", "errors")
# Printed to a pipe or a file, the list is this wide (nothing cut); on a terminal, its width.
PIPED_WIDTH = 200
# Below this width, start is the date alone and ids are their shortest unique prefixes.
NARROW = 120
SHORT_ID = 12  # an id is shortened to no fewer characters
TITLE_MIN = 16


def session_rows(sessions: list[Session]) -> list[tuple[str, ...]]:
    """LIST_COLUMNS of each session, newest first (start to the minute, "… local" for a log's local time)."""
    ordered = sorted(sessions, key=lambda s: (s.started_at.isoformat() if s.started_at else "", s.id), reverse=True)
    return [(s.id, " ".join((s.title or "").split()) or "—",
             s.started_at.strftime("%Y-%m-%d %H:%M") + (" local" if s.local_time and s.started_at.tzinfo is None else "")
             if s.started_at else "—",
             s.format, " ".join(outcome_label(outcome(s))), str(len(s.steps)), cost_total(s.cost), str(s.error_count))
            for s in ordered]


def unique_prefixes(ids: list[str]) -> dict[str, str]:
    """Each id's shortest prefix of SHORT_ID or more characters that names it alone (what
    `show` and `export` take); an id that begins another is kept whole (an exact id wins)."""
    found = {}
    for one in ids:
        others = [other for other in ids if other != one]
        size = SHORT_ID
        while size < len(one) and any(other.startswith(one[:size]) for other in others):
            size += 1
        found[one] = one[:size]
    return found


def print_table(rows: list[tuple[str, ...]], width: int | None = None) -> None:
    """The session list as wide as `width` (the terminal's, else PIPED_WIDTH; COLUMNS wins):
    the columns of figures whole, the title cut with "…" to what they leave, and on a narrow
    terminal the date alone and ids as their unique prefixes (an id longer than its column folds)."""
    import os
    import sys

    from rich import box
    from rich.console import Console
    from rich.table import Table

    if width is None:
        columns = os.environ.get("COLUMNS", "")
        width = int(columns) if columns.isdigit() else os.get_terminal_size().columns if sys.stdout.isatty() else PIPED_WIDTH
    narrow = width < NARROW
    if narrow:
        short = unique_prefixes([row[0] for row in rows])
        rows = [(short[row[0]], row[1], row[2][:10], *row[3:]) for row in rows]
    whole = [max([len(name), *(len(row[at]) for row in rows)]) for at, name in enumerate(LIST_COLUMNS)]
    left = width - sum(whole[2:]) - 2 * (len(LIST_COLUMNS) - 1)  # two spaces between columns
    id_width = min(whole[0], max(SHORT_ID, left - max(TITLE_MIN, left // 2)))  # the title keeps half at least
    title_width = max(TITLE_MIN, min(whole[1], left - id_width))
    # between two columns: the box's blank separator and a space before the next (left padding only)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 0, 0, 1), show_edge=False)
    table.add_column("id", overflow="fold", width=id_width)
    table.add_column("title", overflow="ellipsis", no_wrap=True, width=title_width)
    for at, name in enumerate(LIST_COLUMNS[2:], start=2):
        table.add_column(name, no_wrap=True, width=whole[at], justify="right" if name in ("steps", "cost", "errors") else "left")
    for row in rows:
        table.add_row(*row)
    Console(width=width).print(table)
    if narrow and any(len(row[0]) < len(full) for row, full in zip(rows, short)):
        Console(width=width).print("ids shortened to their unique prefixes: show, export and compare take them", style="dim")


def divergence_line(comparison: Comparison) -> str:
    found = comparison.divergence
    if found is None:
        return "no divergence"
    return (f"diverge at A step {found.a.number if found.a else '-'} / "
            f"B step {found.b.number if found.b else '-'}: {found.explanation}")


class ProgressBar:
    """A rich progress bar for builds of more than a few sessions (typer brings rich);
    used as the build's progress callback."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.bar = None

    def __enter__(self):
        return self.update

    def update(self, done: int, total: int) -> None:
        if not self.enabled or total < 12:  # two passes per source: more than ~5 sessions
            return
        if self.bar is None:
            from rich.progress import Progress

            self.bar = Progress(transient=True)
            self.bar.start()
            self.task = self.bar.add_task("Building", total=total)
        self.bar.update(self.task, completed=done)

    def __exit__(self, *_exc) -> None:
        if self.bar is not None:
            self.bar.stop()
