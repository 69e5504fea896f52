"""The session's settings Claude Code records as lines of their own: `{"type":"mode","mode":…}`
and `{"type":"permission-mode","permissionMode":…}` (2.1.x re-appends both with its other
"last wins" records, so most of them repeat the value before), and the `effort` an assistant
line carries. Each is a fact of the session's header, its values in the order they took effect;
a value that changes after the conversation began is also a step, where it changed."""
from __future__ import annotations

from typing import Any

from replay_site.model import Fact
from replay_site.readers.fields import string

# line kind -> (its value's key, the label of the fact and of the step where it changes)
SETTING_KINDS = {
    "mode": ("mode", "Mode"),
    "permission-mode": ("permissionMode", "Permission mode"),
}


class Settings:
    """The values of each setting in the order they took effect (repeats dropped)."""

    def __init__(self) -> None:
        self.values: dict[str, list[str]] = {}

    def take(self, label: str, value: Any) -> bool:
        """Note `value` of the setting `label`; whether it changed a value set before."""
        value = string(value)
        if not value:
            return False
        seen = self.values.setdefault(label, [])
        if seen and seen[-1] == value:
            return False
        seen.append(value)
        return len(seen) > 1

    def take_line(self, kind: str, obj: dict[str, Any]) -> tuple[str, str] | None:
        """A setting line; (label, new value) when it changed the value set before."""
        key, label = SETTING_KINDS[kind]
        if self.take(label, obj.get(key)):
            return label, self.values[label][-1]
        return None

    def facts(self) -> list[Fact]:
        return [Fact(label, " → ".join(values)) for label, values in self.values.items()]
