"""A house's decisions about what redaction found, kept from one build to the next.

`.replay-site-redact.toml` (in the folder a command runs from) names strings by the SHA-256 of
the string, never the string itself, so the file can be committed and shared:

    [decisions]
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" = "allow"   # left as it is
    "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752" = "redact"  # always replaced

`replay-site redactions` lists every hit with its hash; every build, show, export and compare
honours the file, and `build --strict` fails while a hit is named in neither list.
"""
from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path

FILE = ".replay-site-redact.toml"
DECISIONS = ("allow", "redact")


class DecisionsError(ValueError):
    """The decisions file cannot be read: a mistake the user fixes (exit 2)."""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Decisions:
    allow: frozenset[str] = frozenset()
    redact: frozenset[str] = frozenset()

    def reviewed(self, hashed: str) -> bool:
        return hashed in self.allow or hashed in self.redact


NONE = Decisions()  # no decisions file


def load(path: Path | None = None) -> Decisions:
    """The decisions in `path` (default: FILE in the current folder); none when it is absent."""
    path = Path(FILE) if path is None else path
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Decisions()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise DecisionsError(f"{path}: cannot read the redaction decisions ({exc})") from None
    table = document.get("decisions", {})
    if not isinstance(table, dict) or any(value not in DECISIONS for value in table.values()):
        raise DecisionsError(f"{path}: [decisions] maps sha256 hashes to \"allow\" or \"redact\"")
    return Decisions(frozenset(key.lower() for key, value in table.items() if value == "allow"),
                     frozenset(key.lower() for key, value in table.items() if value == "redact"))
