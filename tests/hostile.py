"""A hostile corpus: the bundled example logs of every format with payloads in every string.

Each string value of each log line (prose, thinking, tool names, ids, argument keys and
values, outputs, diff paths and lines, titles, model names, session ids, cwd, branch) gets a
payload appended; equal strings get the same payload, so ids still link calls to results and
children to parents. Folder names carry a payload too, and each format also gets a line of
invalid UTF-8, a huge line, deep nesting, NUL bytes and a UTF-16 copy of a log.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from replay_site.load import examples_dir

# `{n}` numbers the payload, so a test can tell which field a surviving one came from.
PAYLOAD = ("⟪{n}</script><script>document.documentElement.dataset.pwned='{n}'</script></textarea></title></style>"
           "<!--<img src=x onerror=\"document.documentElement.dataset.pwned='{n}'\">"
           "{{{{7*7}}}}{{% if 1 %}}T{{% endif %}}${{7*7}}"
           "[click](javascript:document.documentElement.dataset.pwned={n}) ![img](data:text/html,x{n}) "
           "[v](vbscript:msgbox) <a href=\"javascript:1\">a</a>"
           "\x1b]0;title\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[31mred\x1b[0m\u202eevil\u200b\U000e0041\x00\x07⟫")
# The part every page must show as literal text wherever the field is shown.
LITERAL = "</script><script>document.documentElement.dataset.pwned="
FOLDER = "<img src=x onerror=document.documentElement.dataset.pwned=1> {{7*7}}"
# Values that give a line its meaning to a reader: left alone so each line is still read.
STRUCTURAL_KEYS = {"type", "role", "event_type", "timestamp", "status", "kind", "schema_version",
                   "originator", "source", "model_provider", "media_type", "stop_reason"}
ARGUMENT_KEYS = {"input", "arguments", "args"}
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT")
EXAMPLES = examples_dir()
# 240 levels (an object and a list per step): under orjson.dumps's limit of 254, which readers
# use for raw-event stubs; deeper lines are tested separately (test_hostile.py).
DEPTH = 120


class Payloads:
    """Appends a numbered payload to each distinct string, the same one to equal strings."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}

    def __call__(self, value: str) -> str:
        number = self.numbers.setdefault(value, len(self.numbers) + 1)
        return value + PAYLOAD.format(n=number)

    def tree(self, node, key: str | None = None):
        """Recursive: these are the bundled examples, a few levels deep. Keys are a format's
        own field names, except inside tool arguments, where they are the agent's."""
        if isinstance(node, dict):
            arguments = key in ARGUMENT_KEYS
            return {(self(k) if arguments else k): self.tree(v, k) for k, v in node.items()}
        if isinstance(node, list):
            return [self.tree(item, key) for item in node]
        if isinstance(node, str) and key not in STRUCTURAL_KEYS and not TIMESTAMP.match(node):
            return self(node)
        return node


def _hostile_lines(path: Path, payloads: Payloads) -> list[str]:
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            lines.append(json.dumps(payloads.tree(json.loads(line))))
        except json.JSONDecodeError:
            lines.append(line)
    return lines


def _is_atif(path: Path) -> bool:
    return str(json.loads(path.read_text(encoding="utf-8")).get("schema_version", "")).startswith("ATIF-")


def _deep(depth: int) -> str:
    return '{"a":[' * depth + '"bottom"' + "]}" * depth


def build_hostile_logs(root: Path, depth: int = DEPTH) -> Path:
    """The hostile copy of every example log under `root`/<payload folder>; returns that folder."""
    payloads = Payloads()
    top = root / FOLDER
    for log in sorted(EXAMPLES.rglob("*")):
        if not log.is_file():
            continue
        target = top / log.relative_to(EXAMPLES)
        target.parent.mkdir(parents=True, exist_ok=True)
        if log.suffix == ".json" and _is_atif(log):
            # an ATIF trajectory is one JSON document: its strings get the payloads whole
            target.write_text(json.dumps(payloads.tree(json.loads(log.read_text(encoding="utf-8"))), indent=2), encoding="utf-8")
            continue
        if log.suffix != ".jsonl":
            shutil.copy(log, target)
            continue
        lines = _hostile_lines(log, payloads)
        # Odd lines a live or damaged log can hold, after the real ones.
        huge = json.dumps({"type": "note", "text": "H" * 300_000})
        lines += [huge, _deep(depth), '{"type": "note", "text": "nul \\u0000 byte"}']
        data = ("\n".join(lines) + "\n").encode("utf-8") + b'{"type": "note", "text": "bad \xff\xfe utf-8"}\n'
        target.write_bytes(data)
    # A UTF-16 copy of one log, as some Windows tools write them.
    utf16 = top / "utf16" / "gptme-utf16" / "conversation.jsonl"
    utf16.parent.mkdir(parents=True)
    source = next(top.glob("gptme/*/conversation.jsonl"))
    utf16.write_bytes(source.read_text(encoding="utf-8", errors="replace").encode("utf-16"))
    return root
