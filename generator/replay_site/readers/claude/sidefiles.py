"""Files Claude Code writes beside a transcript: `agent-<id>.meta.json` next to a subagent's
file (its agent type and description), and `<session>/tool-results/<tool_use_id>.*`, where an
output too large for the log is stored while the log keeps a preview naming that file."""
from __future__ import annotations

from pathlib import Path

from replay_site.model import Fact, Session, Step
from replay_site.readers.fields import string
from replay_site.readers.files import describe_error, open_regular, plain_name
from replay_site.readers.jsonl import load_json

MAX_STORED_OUTPUT = 16 * 1024 * 1024  # the page cuts long outputs anyway; never read unbounded


def read_agent_meta(path: Path, label: str, child: Session, default_title: str) -> str | None:
    """Agent type and description from `agent-<id>.meta.json`; the description titles a child
    whose title is still its first prompt. Returns the id of the tool call that spawned the
    agent (`toolUseId`; in the spawning agent's own file for a nested agent), when it says."""
    meta_path = path.with_name(f"{plain_name(path).stem}.meta.json")
    if not meta_path.is_file():
        return None
    meta = load_json(meta_path, child.problems, label.removesuffix(path.name) + meta_path.name) or {}
    agent_type, description = string(meta.get("agentType")), string(meta.get("description"))
    if agent_type:
        child.facts.append(Fact("Agent type", agent_type))
    if description:
        child.facts.append(Fact("Description", description))
        if child.title == default_title:
            child.title = description
    return string(meta.get("toolUseId"))


class StoredOutputs:
    """The outputs stored beside a main transcript (`<session>/tool-results/`), by call id."""

    def __init__(self, main: Path) -> None:
        folder = main.parent / plain_name(main).stem / "tool-results"
        self._stored = {path.stem: path for path in sorted(folder.iterdir())} if folder.is_dir() else {}

    def fill(self, step: Step, warnings: list[str]) -> None:
        """Replace each preview in `step` that names a stored output with the stored output
        itself; what could not be read is added to `warnings`."""
        if not self._stored:
            return
        for call in step.tool_calls:
            path = self._stored.get(call.id or "")
            if path is None or not call.output or path.name not in call.output:
                continue
            try:
                with open_regular(path) as handle:
                    data = handle.read(MAX_STORED_OUTPUT + 1)
            except OSError as exc:
                warnings.append(f"tool-results/{path.name}: {describe_error(exc)}; the preview is shown")
                continue
            call.output = data[:MAX_STORED_OUTPUT].decode("utf-8", "replace")
            if len(data) > MAX_STORED_OUTPUT:
                warnings.append(f"tool-results/{path.name} is larger than {MAX_STORED_OUTPUT} bytes: cut")


def read_stored_outputs(sessions: list[Session], stored: StoredOutputs) -> None:
    """`stored` put in the steps of whole `sessions`, each warned of what could not be read."""
    for each in sessions:
        warnings: list[str] = []
        for step in each.steps:
            stored.fill(step, warnings)
        for message in warnings:
            each.warn("warning", message)
