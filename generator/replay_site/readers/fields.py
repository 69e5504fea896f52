"""The reader kit: typed getters for untrusted JSON values, and what every reader does the same
way to the sessions it returns (text made encodable, times made aware, unanswered calls
marked, one title rule)."""
from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

import orjson

from replay_site import ansi
from replay_site.model import Session, Step, ToolCall
from replay_site.model_text import StringWalk
from replay_site.readers.timestamps import aware_utc

# --- typed getters: a field of a log line may hold any JSON type ---------------------------------


def count(value: Any) -> int:
    """A token (or other) counter: a non-negative whole number, else 0. Python writers may log
    counts as floats (12.0); they are truncated, never rounded up."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return 0
    return int(value) if 0 <= value < 1e18 else 0


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def string(value: Any) -> str | None:
    """A non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def text(value: Any) -> str:
    """A log value as text: strings as they are, None as empty, anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return raw_json(value)


# JSON deeper than this is shown down to here: orjson refuses past 254 levels, and json's
# encoder recurses.
RAW_DEPTH = 100


def raw_json(value: Any, indent: bool = False) -> str:
    """A log value as JSON text for a raw-event block, at any nesting depth."""
    try:
        return orjson.dumps(value, option=(orjson.OPT_INDENT_2 if indent else 0) | orjson.OPT_NON_STR_KEYS, default=str).decode()
    except (orjson.JSONEncodeError, TypeError):  # too deep, or lone surrogates (made encodable later)
        return json.dumps(_bounded(value), ensure_ascii=False, indent=2 if indent else None, default=str)


def _bounded(value: Any) -> Any:
    """A copy of `value` whose containers deeper than RAW_DEPTH say so; iterative."""
    top: list[Any] = [None]
    pending = [(value, top, 0, 0)]
    while pending:
        node, parent, slot, depth = pending.pop()
        if isinstance(node, (dict, list)) and depth >= RAW_DEPTH:
            parent[slot] = f"… nested deeper than {RAW_DEPTH}"
        elif isinstance(node, dict):
            copy = {}
            parent[slot] = copy
            for key, item in node.items():
                copy[str(key)] = None
                pending.append((item, copy, str(key), depth + 1))
        elif isinstance(node, list):
            copy = [None] * len(node)
            parent[slot] = copy
            pending.extend((item, copy, index, depth + 1) for index, item in enumerate(node))
        else:
            parent[slot] = node
    return top[0]


def mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def listed(value: Any) -> list[Any]:
    """A JSON array, else empty: a field meant to hold a list may hold anything."""
    return value if isinstance(value, list) else []


# --- the reader boundary ---------------------------------------------------------------------

# A lone surrogate (JSON "\ud800") cannot be written as UTF-8; a NUL ends strings in C tools and
# browsers treat it as an error. Both are replaced once here, so nothing later has to care.
_UNENCODABLE = re.compile("[\x00\ud800-\udfff]")


def encodable(value: str) -> str:
    # ASCII has no surrogates, and `in` finds a NUL far faster than the regex scans.
    if (value.isascii() and "\x00" not in value) or not _UNENCODABLE.search(value):
        return value
    return _UNENCODABLE.sub(lambda found: "\u2400" if found.group() == "\x00" else "\ufffd", value)


def shown(value: str) -> str:
    """Inline text as it may reach a page, a terminal or the search index: encodable, escape
    sequences dropped, lone controls and bidi/zero-width/tag characters made visible."""
    return ansi.plain(encodable(value))


def make_encodable(session: Session) -> None:
    """Every string of `session` and its descendants (argument keys and values included) made
    safe in place: `shown`, except tool outputs, which keep their escape sequences (only
    made encodable) for the page to parse into colours once."""
    StringWalk(shown, output=encodable, identity=True, family=True).session(session)


_BOUNDARY = StringWalk(shown, output=encodable, identity=True)


def settle_step(step: Step) -> None:
    """`settle` for one step of a streamed session (which is never in local time)."""
    _BOUNDARY.step(step)
    step.timestamp = aware_utc(step.timestamp)


def settle_head(session: Session) -> None:
    """`settle` for a streamed session without its steps."""
    _BOUNDARY.head(session)
    session.started_at, session.ended_at = aware_utc(session.started_at), aware_utc(session.ended_at)


def settle(session: Session) -> None:
    """What every reader's sessions get on their way out: encodable text and, unless the
    format keeps local times, aware UTC times."""
    make_encodable(session)
    for each in session.walk():
        if each.local_time:
            continue
        each.started_at, each.ended_at = aware_utc(each.started_at), aware_utc(each.ended_at)
        for step in each.steps:
            step.timestamp = aware_utc(step.timestamp)


# --- branches the user took back ---------------------------------------------------------------


def abandon(step: Step, why: str) -> None:
    """A step the user took back (a Claude Code rewind, a gptme undo or edit): kept, since it
    ran and was billed, but folded and titled `why` (not part of the final conversation)."""
    step.collapsed = True
    step.title = why + (f": {step.title}" if step.title else "")


# --- calls that never got a result -------------------------------------------------------------


def answered_call(calls: dict[str, ToolCall], answered: set[int], ident: str | None, name: str = "tool") -> tuple[ToolCall, bool]:
    """The call a result answers, found by the call's id, and marked answered; a new orphan
    (a result with no call) when no call of that id waits for it. Second: whether it is new."""
    call = calls.get(ident) if ident else None
    orphan = call is None or id(call) in answered
    if orphan:
        call = ToolCall(name, id=ident, orphan=True)
    answered.add(id(call))
    return call, orphan


def mark_unanswered(calls: Iterable[ToolCall], answered: set[int]) -> None:
    """Calls whose result never came (by `id(call)` not in `answered`) show "no result",
    never ✓ ok. Orphans (results without a call) and subagent calls answered by their
    child session are not unanswered."""
    for call in calls:
        if id(call) not in answered and not call.orphan and call.child_session_id is None:
            call.missing_result = True


# --- the title rule ------------------------------------------------------------------------

# Text that tools inject at the top of a user turn: not what the user asked.
_INJECTED = re.compile(
    r"^\s*(?:<(ide_opened_file|ide_selection|environment_context|user_instructions|system-reminder"
    r"|command-name|command-message|command-args|local-command-stdout|local-command-caveat)>.*?</\1>\s*)+",
    re.S,
)
_INJECTED_ONLY = (
    "# Files mentioned by the user:",
    "# Context from my IDE setup:",
    "Caveat: The messages below were generated",
    "<environment_context>",
    "<user_instructions>",
    "<ide_opened_file>",
    "<ide_selection>",
    "<system-reminder>",
    "<local-command-caveat>",
)
_REQUEST_HEADER = re.compile(r"^\s*## My request for Codex:\s*\n", re.M)
TITLE_LENGTH = 80


def title_from_prompt(prompt: str) -> str | None:
    """A title from one user message: its first line of real request text, or None when the
    message holds only injected context (IDE headers, environment blocks, caveats)."""
    request = _REQUEST_HEADER.split(prompt, maxsplit=1)
    body = request[1] if len(request) == 2 else prompt
    body = _INJECTED.sub("", body).strip()
    if not body or body.startswith(_INJECTED_ONLY):
        return None
    line = next((part.strip() for part in body.splitlines() if part.strip()), "")
    return line[:TITLE_LENGTH] + "…" if len(line) > TITLE_LENGTH else line or None


# A prompt of at most this many words ("show tools", "continue", "/model sonnet") gives an
# order, not a task: a later prompt that states one titles the session better.
SHORT_COMMAND_WORDS = 2


def is_short_command(title: str) -> bool:
    return title.startswith("/") or len(title.split()) <= SHORT_COMMAND_WORDS


def first_request(prompts: Iterable[str]) -> str | None:
    """The title of a session without one of its own: the first user request that states a
    task, past injected context and short commands; the first short command when no prompt
    states more."""
    chosen = FirstRequest()
    for prompt in prompts:
        if chosen.offer(prompt):
            break
    return chosen.request


class FirstRequest:
    """`first_request` told one prompt at a time (a reader giving out steps as it reads)."""

    def __init__(self) -> None:
        self.request: str | None = None
        self._found = False

    def offer(self, prompt: str) -> bool:
        """Whether the request is now found (no later prompt can change it)."""
        if not self._found:
            found = title_from_prompt(prompt)
            if found and not is_short_command(found):
                self.request, self._found = found, True
            else:
                self.request = self.request or found
        return self._found


def user_prompts(steps: Iterable[Step]) -> Iterable[str]:
    return (step.text for step in steps if step.kind == "user" and step.text)
