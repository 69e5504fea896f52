"""Secret redaction, applied to the model before rendering (`build --redact`).

Logs hold whatever passed through the agent's terminal: API keys printed by `env`, tokens in
config files it read. Before a site is published, every string in the model (prose, thinking,
arguments, outputs, diffs, previews, variables) is scanned for well-known credential shapes,
and each match is replaced by a marker naming its kind, so a reader sees that something was
there. Patterns are deliberately specific (prefixes and lengths that real keys have) so that
ordinary hex hashes and ids stay readable.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any

from .model import Fact, Session

PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)")),
    ("Anthropic key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("OpenAI key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})")),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("Stripe key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}")),
    ("JSON web token", re.compile(r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}")),
    ("bearer token", re.compile(r"(?i)(?<=\bbearer )[A-Za-z0-9_\-.=]{20,}")),
    ("password in URL", re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]{3,}(?=@)")),
]


# Identity fields link sessions, steps and pages together; image bytes are not text.
_KEEP = {"id", "format", "source", "parent_id", "relation", "children", "problems",
         "child_session_id", "child_session_ids", "data_base64", "number"}


class _Redactor:
    def __init__(self) -> None:
        self.count = 0

    def text(self, value: str) -> str:
        for name, pattern in PATTERNS:
            value, found = pattern.subn(f"[REDACTED {name}]", value)
            self.count += found
        return value

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, dict):
            return {key: self.value(item) for key, item in value.items()}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            for field in dataclasses.fields(value):
                if field.name not in _KEEP:
                    setattr(value, field.name, self.value(getattr(value, field.name)))
        return value


def redact_session(session: Session) -> int:
    """Redact `session` and its children in place; returns how many secrets were replaced."""
    total = 0
    for each in session.walk():
        redactor = _Redactor()
        redactor.value(each)  # children are kept out by _KEEP and reached through walk()
        if redactor.count:
            each.facts.append(Fact("Redacted", f"{redactor.count} secrets replaced before rendering"))
        total += redactor.count
    return total
