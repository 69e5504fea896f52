"""`--anonymize`: who ran a session, and where, replaced by stable placeholders.

Home folders become `/home/<user>` (`/Users/<user>`, `C:\\Users\\<user>`, and the
`-home-<user>-` of Claude Code's project folder names); the user names found there are
replaced wherever else they stand as a word; `user@host` prompts become `<user>@<host-…>`;
e-mail addresses `<email-…>`. A placeholder that must tell values apart is derived from a hash
of the value, so it is the same in every session and page of a site whatever order sessions
are read in, by however many workers.
"""
from __future__ import annotations

import hashlib
import re

from replay_site.model import Session
from replay_site.model_text import StringWalk

USER = "<user>"
_HOME = re.compile(r"(?P<root>/home/|/Users/|[A-Za-z]:\\\\?Users\\\\?|(?<=-)home-)(?P<user>[A-Za-z0-9._][A-Za-z0-9._-]{0,31})")
_EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
# A shell prompt's `user@host:` or `user@host ` (no dot: an e-mail address has one).
_PROMPT = re.compile(r"(?<![\w.@-])(?P<user>[a-z_][a-z0-9_-]{0,31})@(?P<host>[A-Za-z][A-Za-z0-9-]{0,62})(?=[:\s\]$#])")
_PLACEHOLDER_USERS = {USER, "<user"}


def _tag(kind: str, value: str) -> str:
    return f"<{kind}-{hashlib.sha256(value.lower().encode()).hexdigest()[:6]}>"


def _users(text: str) -> set[str]:
    """User names of the home folders `text` names (for Claude's `-home-dev-app`, the part
    before the next dash)."""
    found = set()
    for match in _HOME.finditer(text):
        user = match["user"].split("-")[0] if match["root"] == "home-" else match["user"]
        if user and user not in _PLACEHOLDER_USERS:
            found.add(user)
    return found


def _home(match: re.Match[str]) -> str:
    user = match["user"]
    if match["root"] == "home-":  # -home-dev-app: only `dev` is the user
        rest = user.partition("-")
        return f"home-{USER}{rest[1]}{rest[2]}"
    return f"{match['root']}{USER}"


def anonymize_session(session: Session) -> None:
    """Replace home paths, user and host names and e-mail addresses in every string of
    `session` and its children, source paths included (Claude's hold the project folder).
    A user name is found in the family's home paths, then replaced wherever it stands as a word."""
    users: set[str] = set()

    def collect(text: str) -> str:
        if "home" in text or "Users" in text:
            users.update(_users(text))
        return text

    StringWalk(collect, family=True).session(session)
    for each in session.walk():
        collect(each.source)
    by_word = re.compile(r"(?<![\w.-])(?:" + "|".join(map(re.escape, sorted(users, key=len, reverse=True))) + r")(?![\w-])") \
        if users else None

    def fix(text: str) -> str:
        if "@" in text:
            text = _EMAIL.sub(lambda m: _tag("email", m.group(0)), text)
            text = _PROMPT.sub(lambda m: f"{USER}@{_tag('host', m['host'])}", text)
        if "home" in text or "Users" in text:
            text = _HOME.sub(_home, text)
        if by_word is not None:
            text = by_word.sub(USER, text)
        return text

    def fix_changed(text: str) -> str:  # the very input when nothing changed: StringWalk stores only changes
        fixed = fix(text)
        return text if fixed == text else fixed

    # Text fields, and the names that show a path (ids and image bytes are left alone).
    StringWalk(fix_changed, family=True).session(session)
    for each in session.walk():
        each.source = fix(each.source)
        for problem in each.problems:
            problem.message, problem.path = fix(problem.message), fix(problem.path)
