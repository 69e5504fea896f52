"""View models of the audit blocks of a session's first page (the ledger of what it touched
and the "what went wrong" card) and of the site's files.html. Figures come from figures/ledger.py and figures/failures.py;
here they are written once and linked to the page holding each step."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from replay_site import ansi
from replay_site.figures.failures import SAYS_WHAT_FAILED, STEP_ERROR, Aftermath, WhatWentWrong, call_action
from replay_site.figures.ledger import CommandRun, FileTouch, Ledger, command_title
from replay_site.figures.site_files import ChangedFile
from replay_site.model import Step
from replay_site.pages import formatting, paging

# An error list's entry names what failed in about this many characters a part.
ERROR_CHARS = 80
# A command is shown by its first line, this long at most (the step holds all of it).
COMMAND_CHARS = 160
ACTION_CHARS = 120
# Rows of each ledger table on the page: past this, the first page of a long session would
# grow with its length; the rest are on their steps.
LEDGER_ROWS = 1_000
# The probes a card names when no failure mattered (they are then its news).
LISTED_PROBES = 5
# A ledger of more rows than this starts folded (LedgerView.open).
LEDGER_OPEN_ROWS = 8
# A file row names this many of the steps that touched the file, then its last: a file read
# or edited at thousands of steps would otherwise make the row grow with the session.
ROW_STEPS = 20

StepHref = Callable[[int], str]


@dataclass
class Jump:
    number: int
    href: str
    label: str  # "#12"


@dataclass
class FileRow:
    path: str
    action: str
    added: str
    removed: str
    added_value: int
    removed_value: int
    steps: list[Jump]  # the first ROW_STEPS
    more: str | None = None  # "238 more": the steps between those and the last
    last: Jump | None = None


@dataclass
class CommandRow:
    command: str
    title: str  # what the agent said it was for, or ""
    exit_code: str
    exit_value: int  # for sorting: -1 when the log gives none
    failed: bool
    duration: str
    duration_value: float
    step: Jump


@dataclass
class LedgerView:
    files: list[FileRow]
    commands: list[CommandRow]
    files_line: str  # "2 files changed, 1 read"
    commands_line: str  # "3 commands, 1 failed"
    files_left: str | None  # "the first 1,000 of 1,234 files" when the table is cut
    commands_left: str | None
    # Open when short: a long ledger starts folded to its summary line, so that the first
    # step stays on the first screen of a phone (the line still says what was touched).
    open: bool = True


@dataclass
class GroupRow:
    label: str  # "Read error × 460"
    first: Jump
    last: Jump | None  # None when the group is one failure


@dataclass
class CardView:
    step: Jump | None  # the failure that mattered; None when only probes failed or the user declined
    what: str  # "Bash exit 1", "step error"
    action: str
    title: str  # what the agent said the command was for ("Run the date tests"), or ""
    tail: str
    next: tuple[Jump, str] | None
    verdict: str  # "Failed at #4, fixed at #8."
    recovered: bool
    fixed: tuple[Jump, str] | None
    passed: tuple[Jump, str] | None
    passed_label: str  # "Passing again", or "Recovered" after a step error
    probes: list[tuple[Jump, str]]
    probes_line: str  # "2 probes found nothing" (searches, lists, reads of missing paths)
    refusals: list[tuple[Jump, str]]
    refusals_line: str  # "Declined by the user"
    groups: list[GroupRow]


def short(text: str, limit: int) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    more = line != text.strip()
    if len(line) > limit:
        return line[: limit - 1].rstrip() + "…"
    return line + (" …" if more else "")


def _jump(number: int, href: StepHref) -> Jump:
    return Jump(number, href(number), f"#{number}")


@dataclass
class LedgerHead:
    """What the first page's ledger block shows of a session's Ledger, kept in its digest
    instead of the whole ledger: every worker writing a range of a long session's pages reads
    the digest, and the ledger grows with the session (a 200,000-step session ran ~48,000
    commands)."""

    files: list[FileTouch]  # the first LEDGER_ROWS, each with its first ROW_STEPS steps and its last
    touches: list[int]  # how many steps touched each of those files
    commands: list[CommandRun]  # the first LEDGER_ROWS
    file_count: int
    changed_count: int
    command_count: int
    failed_commands: int


def ledger_head(found: Ledger) -> LedgerHead:
    # the files it changed first (what a reader asks of a session), then those it only read; in order within each
    shown = ([t for t in found.files if t.changed] + [t for t in found.files if not t.changed])[:LEDGER_ROWS]
    files = [FileTouch(t.path, t.action, t.added, t.removed, t.steps[:ROW_STEPS] + t.steps[ROW_STEPS:][-1:]) for t in shown]
    return LedgerHead(files, [len(t.steps) for t in shown], found.commands[:LEDGER_ROWS],
                      len(found.files), len(found.changed_files), len(found.commands), found.failed_commands)


def ledger_view(found: LedgerHead, href: StepHref) -> LedgerView:
    files = []
    for t, touches in zip(found.files, found.touches):
        row = FileRow(t.path, t.action, f"+{t.added:,}" if t.changed else "", f"−{t.removed:,}" if t.changed else "",
                      t.added, t.removed, [_jump(n, href) for n in t.steps[:ROW_STEPS]])
        if touches > ROW_STEPS:
            row.last = _jump(t.steps[-1], href)
            if touches > ROW_STEPS + 1:
                row.more = f"{touches - ROW_STEPS - 1:,} more"
        files.append(row)
    commands = [CommandRow(short(run.command, COMMAND_CHARS), formatting.first_line(run.title, ACTION_CHARS),
                           "—" if run.exit_code is None else str(run.exit_code),
                           -1 if run.exit_code is None else run.exit_code, run.failed,
                           formatting.duration(run.duration_s), -1 if run.duration_s is None else run.duration_s, _jump(run.step, href))
                for run in found.commands]
    changed = found.changed_count
    read = found.file_count - changed
    files_line = ", ".join(part for part in (formatting.counted(changed, "file") + " changed" if changed else "",
                                             f"{read:,} read" if read else "") if part)
    failed = found.failed_commands
    commands_line = formatting.counted(found.command_count, "command") + (f", {failed:,} failed" if failed else "")
    return LedgerView(files, commands, files_line, commands_line, _left(found.file_count, "file"), _left(found.command_count, "command"),
                      open=changed > 0 or len(files) + len(commands) <= LEDGER_OPEN_ROWS)  # open where it changed files


def _left(total: int, noun: str) -> str | None:
    return f"the first {LEDGER_ROWS:,} of {total:,} {noun}s" if total > LEDGER_ROWS else None


def _then(aftermath: Aftermath | None, href: StepHref) -> tuple[Jump, str] | None:
    return (_jump(aftermath.step, href), short(aftermath.action, ACTION_CHARS)) if aftermath else None


def _verdict(found: WhatWentWrong) -> str:
    """The card's first line: how the failure that mattered came out, and the refusals."""
    first, parts = found.first, []
    if first is not None:
        parts.append(f"Failed at #{first.step}")
        if found.recovery == "fixed" and found.passed:
            parts.append(f"fixed at #{found.passed.step}")
        elif found.recovery == "recovered" and found.passed:
            parts.append(f"recovered at #{found.passed.step}")
        elif found.unanswered is not None:
            parts.append(f"run again at #{found.unanswered.step}, whose result never came")
        elif found.recovery == "answered":
            parts[-1] += f"; ended with an answer, #{first.step} was not run again"
        elif found.recovery == "not_run_again":
            parts.append("not run successfully again" if first.key[0] == "command" else "not run again")
        else:
            parts.append("not recovered")
    if found.refusals:
        parts.append("declined by the user at " + ", ".join(f"#{each.step}" for each in found.refusals))
    if first is None:
        probes = f"{formatting.counted(found.probe_count, 'probe')} found nothing" if found.probe_count else ""
        parts.append(("nothing else failed" + (f" ({probes})" if probes else "")) if found.refusals else f"Nothing failed that mattered: {probes}")
    line = ", ".join(parts)
    return line[:1].upper() + line[1:] + "."


def card_view(found: WhatWentWrong, href: StepHref) -> CardView:
    first = found.first
    # the card's own steps are linked before the groups' (a page's links are budgeted in the order made)
    step = _jump(first.step, href) if first else None
    then, fixed, passed = _then(found.next, href), _then(found.fixed, href), _then(found.passed, href)
    if fixed and then and fixed[0].number == then[0].number and fixed[1] == then[1]:
        fixed = None  # the next action was the change: named once
    refusals = [(_jump(each.step, href), short(each.action, ACTION_CHARS)) for each in found.refusals]
    # beside a failure that mattered the probes are one line (the first named): each link spends the page's budget
    probes = [(_jump(each.step, href), short(each.action, ACTION_CHARS)) for each in found.probes[: LISTED_PROBES if first is None else 1]]
    groups = [GroupRow(f"{group.tool} {group.kind} × {group.count:,}", _jump(group.first, href),
                       _jump(group.last, href) if group.last != group.first else None) for group in found.groups]
    step_error = first is not None and first.tool == STEP_ERROR
    return CardView(
        step=step, what="" if first is None else first.tool if step_error else f"{first.tool} {first.kind}",
        action=short(first.action, COMMAND_CHARS) if first else "", title=short(first.description, ACTION_CHARS) if first else "",
        tail="\n".join(first.tail) if first else "", next=then, verdict=_verdict(found), recovered=found.recovered,
        fixed=fixed, passed=passed, passed_label="Recovered" if step_error else "Passing again",
        probes=probes, probes_line=(f"{formatting.counted(found.probe_count, 'probe')} found nothing"
                                    + (f" (the first {len(probes)})" if found.probe_count > len(probes) > 1 else
                                       " (the first)" if found.probe_count > len(probes) else "")),
        refusals=refusals, refusals_line="Declined by the user" + (f" ({found.refusal_count:,}, the first {len(refusals)})" if found.refusal_count > len(refusals) else ""),
        groups=groups,
    )


def error_label(step: Step) -> str:
    """What failed at a step, in a line: the step's own error, else its first failed call by
    its command's first words (and what the agent said it was for) or its tool and target,
    its exit code and its error's last line ("npm test failed (exit 1): AssertionError …")."""
    failed = [call for call in step.tool_calls if call.is_error and not call.declined]  # a refusal is no error
    if step.error:
        label = formatting.first_line(step.error, ERROR_CHARS) or "error"
    elif failed:
        call = failed[0]
        what = formatting.first_line(call_action(call), ERROR_CHARS // 2) or call.name
        title = command_title(call)
        label = (f"{formatting.first_line(title, ERROR_CHARS // 2)}: {what}" if title else what)
        label += " failed"
        if call.exit_code not in (None, 0):
            label += f" (exit {call.exit_code})"
        last = _last_line(call.output or "")
        if last and last not in what:
            label += f": {formatting.first_line(last, ERROR_CHARS)}"
    else:
        return "error"
    return label + _more(len(failed) + (1 if step.error else 0) - 1)


def _more(extra: int) -> str:
    return f" and {formatting.counted(extra, 'more error')}" if extra > 0 else ""


_EXIT_LINE = re.compile(r"^\W*(exit|return) code\W*\d*\W*$", re.IGNORECASE)


def _last_line(text: str) -> str:
    """The line of an output that says what failed: the last naming an error or a failure
    (AssertionError, FAILED, No such file), else the last with a few words on it (a rule of
    dashes, an "Exit code 1" line are not)."""
    lines = [line.strip() for line in ansi.plain(text[-4000:]).splitlines()]
    wordy = [line for line in lines if _has_letters(line, 3) and not _EXIT_LINE.match(line)]
    return next((line for line in reversed(wordy) if SAYS_WHAT_FAILED.search(line)), wordy[-1] if wordy else "")


def _has_letters(line: str, count: int) -> bool:
    # Stops at the `count`th letter: failed outputs run to thousands of lines.
    for char in line:
        if char.isalpha():
            count -= 1
            if not count:
                return True
    return False


@dataclass
class FileSessionRow:
    title: str
    href: str
    change: str  # "+3 −1"
    steps: list[Jump]


@dataclass
class FileIndexRow:
    path: str
    added: str
    removed: str
    net: str
    net_value: int
    sessions: list[FileSessionRow]
    projects: str = ""  # the projects of the sessions that changed it


def files_page_row(entry: ChangedFile, page_path: str = "files.html") -> FileIndexRow:
    """files.html's row of one changed path: its net lines and the sessions and steps that changed it."""
    sessions = []
    for found in entry.sessions:
        slug = posixpath.splitext(posixpath.basename(found.summary.page))[0]
        sessions.append(FileSessionRow(found.summary.title, paging.relative(found.summary.page, page_path),
                                       f"+{found.added:,} −{found.removed:,}",
                                       [_jump(n, lambda n, slug=slug: paging.step_href(slug, n, page_path)) for n in found.steps]))
    projects = ", ".join(sorted({found.summary.project for found in entry.sessions if found.summary.project}))
    return FileIndexRow(entry.path, f"+{entry.added:,}", f"−{entry.removed:,}", f"{entry.net:+,}".replace("-", "−"), entry.net, sessions, projects)


def row_inputs(entry: ChangedFile) -> list:
    """Everything files_page_row reads, as plain data (what a kept row is known by)."""
    return [entry.path, entry.added, entry.removed,
            [[found.summary.title, found.summary.page, found.added, found.removed, found.steps, found.summary.project]
             for found in entry.sessions]]
