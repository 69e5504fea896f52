"""Every string a session holds, reached by code written out per model type.

Two stages touch every string of every session: the reader boundary (readers/fields.py makes
text encodable and shown) and redaction (redact/ looks for secrets and replaces them). Both
walk the model through `StringWalk`, which knows each type's text fields, instead of
discovering fields by reflection for each of a session's ~100,000 objects.

Identity fields (ids, formats, sources, kinds, statuses, problems, image bytes, the links to
child sessions) name and link things rather than hold log text: redaction keeps them, so a
walk visits them only when asked (`identity`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from replay_site.model import (
    Cost,
    Detail,
    Fact,
    FileChange,
    Image,
    Problem,
    PullRequest,
    Session,
    Step,
    TodoItem,
    ToolCall,
    Variable,
)

Fix = Callable[[str], str]

# The log text each model type holds in plain string fields.
_TEXT: dict[type, tuple[str, ...]] = {
    Session: ("title", "cwd", "git_branch", "git_commit", "agent_version", "project", "outcome"),
    Step: ("model", "title", "text", "thinking", "error", "checkpoint"),
    ToolCall: ("name", "code", "language", "url"),  # output and arguments have their own handling
    FileChange: ("path", "diff", "new_path"),
    Image: ("media_type",),
    TodoItem: ("text",),
    Variable: ("name", "value", "type"),
    Detail: ("label", "text", "language"),
    Fact: ("label", "value"),
    PullRequest: ("url", "repository"),
}
_IDENTITY: dict[type, tuple[str, ...]] = {
    Session: ("id", "format", "source", "parent_id", "relation", "status", "session_kind", "kept_since"),
    Step: ("kind",),
    ToolCall: ("id", "child_session_id"),
    FileChange: ("kind",),
    Image: ("data_base64",),
    TodoItem: ("status",),
    Problem: ("kind", "message", "path"),
    Cost: ("source", "tier"),
}
# Redaction cuts argument trees nested deeper than its limit, counted from the session
# (session, its steps, a step, its calls, a call): where an argument tree starts.
ARGUMENTS_DEPTH = 5


@dataclass
class StringWalk:
    """`fix` applied to every string of a session (and its argument trees' keys and values),
    each result stored where it differs from the string (a read-only walk returns its input).
    `output` is used for tool outputs instead, when given; `depth_cut` replaces containers
    nested deeper than it with a visible marker; `family` also walks child sessions."""

    fix: Fix
    output: Fix | None = None
    identity: bool = False
    keys: bool = True
    depth_cut: int | None = None
    family: bool = False

    def session(self, session: Session) -> None:
        self.head(session)
        for step in session.steps:
            self.step(step)
        if self.family:
            for child in session.children:
                self.session(child)

    def head(self, session: Session) -> None:
        """The session's own strings: all but its steps' and its children's."""
        self._fields(session, Session)
        session.declared_models = self._strings(session.declared_models)
        self._each(session.facts, Fact)
        self._each(session.pull_requests, PullRequest)
        if self.identity:
            self._each(session.problems, Problem)
            if session.redactions:
                self._tree(session.redactions, 0)
            self._tree(session.records, 0)  # line kinds named by the log

    def step(self, step: Step) -> None:
        self._fields(step, Step)
        for call in step.tool_calls:
            self.call(call)
        self._each(step.images, Image)
        self._each(step.details, Detail)
        self._each(step.variables, Variable)
        step.memory_notes = self._strings(step.memory_notes)
        if self.identity:
            step.child_session_ids = self._strings(step.child_session_ids)
            if step.tier:
                self._tree(step.tier, 0)  # the price table's keys, with the log's values
            if step.cost is not None:
                self._fields(step.cost, Cost)

    def call(self, call: ToolCall) -> None:
        self._fields(call, ToolCall)
        if isinstance(call.output, str):
            fixed = (self.output or self.fix)(call.output)
            if fixed is not call.output:
                call.output = fixed
        self.arguments(call)
        self._each(call.changes, FileChange)
        self._each(call.images, Image)
        self._each(call.todos, TodoItem)

    def arguments(self, call: ToolCall) -> None:
        arguments = call.arguments
        if isinstance(arguments, str):
            fixed = self.fix(arguments)
            if fixed is not arguments:
                call.arguments = fixed
        elif isinstance(arguments, (dict, list)):
            self._tree(arguments, ARGUMENTS_DEPTH)

    def _each(self, nodes: list[Any], kind: type) -> None:
        for node in nodes:
            self._fields(node, kind)

    def _fields(self, node: Any, kind: type) -> None:
        fix = self.fix
        names = _TEXT.get(kind, ())
        if self.identity:
            names += _IDENTITY.get(kind, ())
        for name in names:
            value = getattr(node, name)
            if isinstance(value, str):
                fixed = fix(value)
                if fixed is not value:
                    setattr(node, name, fixed)

    def _strings(self, values: list[str]) -> list[str]:
        """A list of strings with each fixed, in place (the list itself is returned)."""
        fix = self.fix
        for index, value in enumerate(values):
            if isinstance(value, str):
                fixed = fix(value)
                if fixed is not value:
                    values[index] = fixed
        return values

    def _tree(self, root: dict | list, depth: int) -> None:
        """Keys and values of a JSON-like tree; iterative, so no nesting depth raises
        RecursionError."""
        fix, cut = self.fix, self.depth_cut
        stack: list[tuple[Any, int]] = [(root, depth)]
        while stack:
            node, depth = stack.pop()
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, value in items:
                if isinstance(value, str):
                    fixed = fix(value)
                    if fixed is not value:
                        node[key] = fixed
                elif isinstance(value, (dict, list)):
                    if cut is not None and depth >= cut:
                        node[key] = f"… nested deeper than {cut} levels"
                    else:
                        stack.append((value, depth + 1))
            if self.keys and isinstance(node, dict):
                renamed = {key: fix(key) if isinstance(key, str) else key for key in node}
                if any(old is not new for old, new in renamed.items()):
                    items = list(node.items())
                    node.clear()
                    node.update((renamed[key], value) for key, value in items)
