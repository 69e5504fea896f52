"""pygments' RegexLexer loop with each state's rules tried as one regex: the same tokens, found
by one match where pygments calls each rule's own in turn, a Python call apiece, until one
matches (a Markdown file's word tried ~25 rules: highlighting such files was a third of a long
session's page rendering, issue 20).

The joined regex is the state's rules in their order, each in a group of its own; at a position
it matches with the first rule that matches there, as pygments' loop takes, and the group that
closed last names that rule. A rule whose every match starts at a line's start (a leading `^`)
is left out of the regex used within a line. A state whose rules cannot be joined so (a
numbered back-reference, a group name two rules share) is tried rule by rule, as pygments does.
The state stack is kept as pygments' own loop (RegexLexer.get_tokens_unprocessed, pinned 2.21)
keeps it, so that the tokens are pygments' (test_lexing compares them); only how a state's rule
is found differs.
"""
from __future__ import annotations

import re
from functools import cache
from re import _constants as sre_constants
from re import _parser as sre_parser  # how re reads a pattern: whether a rule starts with ^

from pygments.lexer import RegexLexer
from pygments.token import Error, Whitespace, _TokenType

# A rule's pattern given its own flags in front, `(?x)...`: joined as a group with those flags.
_LEADING_FLAGS = re.compile(r"\(\?([aiLmsux]+)\)")
# A state whose rules' patterns are longer than this in all is tried rule by rule: compiling it
# joined costs about what compiling its rules did (a state of long word lists: 20-160 ms), in
# every process that highlights with it, and its words are found by one rule anyway.
JOINED_AT_MOST = 3000
# What a joined pattern cannot hold: a group by number would name another rule's.
_NUMBERED = re.compile(r"\\[1-9]|\(\?\(")


def quick(lexer):
    """A lexer of the same class and options as `lexer` whose states are tried as one regex
    each, or `lexer` itself where its class runs a loop of its own."""
    cls = type(lexer)
    if not isinstance(lexer, RegexLexer) or cls.get_tokens_unprocessed is not RegexLexer.get_tokens_unprocessed \
            or getattr(cls, "token_variants", False):
        return lexer
    return _quick_class(cls)(**lexer.options)


class _JoinedStates:
    """The loop of RegexLexer.get_tokens_unprocessed, each state's rule found by _State.first."""

    _states: dict[str, _State]

    def get_tokens_unprocessed(self, text, stack=("root",)):
        pos = 0
        states = self._states
        statestack = list(stack)
        state = states.get(statestack[-1]) or self._state(statestack[-1])
        while 1:
            rule, match = state.first(text, pos, pos == 0 or text[pos - 1] == "\n")
            if rule is not None:
                _, action, new_state = rule
                if action is not None:
                    if type(action) is _TokenType:
                        yield pos, action, match.group(match.lastindex) if state.joined else match.group()
                    else:
                        yield from action(self, match if not state.joined else rule[0](text, pos))
                pos = match.end()
                if new_state is not None:
                    if isinstance(new_state, tuple):
                        for name in new_state:
                            if name == "#pop":
                                if len(statestack) > 1:
                                    statestack.pop()
                            elif name == "#push":
                                statestack.append(statestack[-1])
                            else:
                                statestack.append(name)
                    elif isinstance(new_state, int):  # pops, never the last state: text may pop more than it pushed
                        if abs(new_state) >= len(statestack):
                            del statestack[1:]
                        else:
                            del statestack[new_state:]
                    elif new_state == "#push":
                        statestack.append(statestack[-1])
                    else:
                        raise AssertionError(f"wrong state def: {new_state!r}")
                    state = states.get(statestack[-1]) or self._state(statestack[-1])
                continue
            try:  # no rule matches here: a line's end starts again from "root", anything else is an error token
                if text[pos] == "\n":
                    statestack = ["root"]
                    state = states.get("root") or self._state("root")
                    yield pos, Whitespace, "\n"
                    pos += 1
                    continue
                yield pos, Error, text[pos]
                pos += 1
            except IndexError:
                break

    def _state(self, name: str) -> _State:
        state = self._states[name] = _State(self._tokens[name], self.flags)
        return state


class _State:
    """One state's rules (pygments' processed `(match, action, new state)` triples), tried
    as one regex at a line's start and one within a line, or one by one."""

    def __init__(self, rules: list[tuple], flags: int) -> None:
        self.rules = rules
        self.joined = sum(len(rule[0].__self__.pattern) for rule in rules) <= JOINED_AT_MOST
        try:
            if self.joined:
                self._anywhere = _joined(rules, flags, within_line=False)
                self._within_line = _joined(rules, flags, within_line=True)
        except (re.error, _NotJoinable):
            self.joined = False

    def first(self, text: str, pos: int, line_start: bool):
        """The first rule that matches at `pos` and its match: of the joined regex (its
        `lastindex` the rule's group), or of the rule's own when not joined."""
        if not self.joined:
            for rule in self.rules:
                match = rule[0](text, pos)
                if match:
                    return rule, match
            return None, None
        match, rules = self._anywhere if line_start else self._within_line
        found = match(text, pos)
        return (rules[found.lastindex], found) if found else (None, None)


class _NotJoinable(Exception):
    pass


def _joined(rules: list[tuple], flags: int, within_line: bool):
    """(the joined regex's match, the rule of each of its groups that holds a rule)."""
    parts, by_group, group = [], {}, 1
    for rule in rules:
        compiled = rule[0].__self__
        if within_line and _at_line_start(compiled):
            continue
        pattern = compiled.pattern
        if not isinstance(pattern, str) or _NUMBERED.search(pattern) or flags & ~compiled.flags:
            raise _NotJoinable(pattern)
        if compiled.flags & ~flags & ~re.UNICODE:  # flags the pattern sets itself, in front
            leading = _LEADING_FLAGS.match(pattern)
            if leading is None:
                raise _NotJoinable(pattern)
            pattern = f"(?{leading.group(1)}:{_ended(pattern[leading.end():], compiled.flags)})"
        parts.append(f"({_ended(pattern, flags)})")
        by_group[group] = rule
        group += 1 + compiled.groups
    return (re.compile("|".join(parts), flags).match if parts else _nothing), by_group


def _ended(pattern: str, flags: int) -> str:
    """A pattern that a group's end may follow: a comment in a verbose one runs to the end of its line."""
    return pattern + "\n" if flags & re.VERBOSE else pattern


def _nothing(_text: str, _pos: int) -> None:
    """The match of a state within a line where its every rule starts at a line's start."""
    return None


def _at_line_start(compiled: re.Pattern) -> bool:
    """Whether every match of a pattern starts at the start of a line or of the text (its
    first item, within any groups, is ^ or \\A): never within a line."""
    items = list(sre_parser.parse(compiled.pattern, compiled.flags))
    while items:
        op, value = items[0]
        if op is sre_constants.SUBPATTERN:
            items = list(value[-1]) + items[1:]
        else:
            return op is sre_constants.AT and value in (sre_constants.AT_BEGINNING, sre_constants.AT_BEGINNING_STRING)
    return False


@cache
def _quick_class(cls: type) -> type:
    """`cls` with the loop above, sharing its processed rules."""
    return type(cls.__name__, (_JoinedStates, cls), {"__module__": cls.__module__, "_tokens": cls._tokens, "_states": {}})
