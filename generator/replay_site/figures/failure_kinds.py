"""What kind of failure a failed call is, for picking the one that mattered (figures/failures.py):
a check (a test run, a build, a type check, a linter), another command, a step's own error,
another call (a code cell, an edit that missed), a probe (a search, list or read that found
nothing, a sandbox refusal, a poll of a finished command), or the user's refusal, which is not
a failure at all. From the call alone: its command's program, its tool's name, its output.
"""
from __future__ import annotations

import shlex

from replay_site import ansi
from replay_site.figures.ledger import is_command
from replay_site.model import ToolCall

# The kinds, most telling first: the failure that mattered is of the first kind present.
CHECK, COMMAND, STEP, CALL, PROBE = range(5)
KIND_NAMES = ("check", "command", "step error", "call", "probe")

# Words that run the program named after them.
_RUNNERS = frozenset({"python", "python3", "-m", "uv", "uvx", "run", "poetry", "pipenv", "npx", "bunx", "bundle",
                      "exec", "sudo", "time", "env", "nice", "timeout"})
# Programs whose first word after them says what they do (cargo test, npm run build).
_WITH_SUBCOMMAND = frozenset({"cargo", "go", "npm", "pnpm", "yarn", "bun", "make", "git", "dotnet", "mvn", "gradle",
                              "./gradlew", "tox", "nox", "just", "deno", "dart", "flutter", "swift"})
# Programs that test, build, type-check or lint whatever their arguments...
_CHECK_PROGRAMS = frozenset({
    "pytest", "py.test", "unittest", "nosetests", "tox", "nox", "jest", "vitest", "mocha", "ava", "karma", "playwright",
    "cypress", "rspec", "phpunit", "ctest", "tsc", "mypy", "pyright", "ruff", "flake8", "pylint", "eslint", "black",
    "isort", "prettier", "rubocop", "golangci-lint", "shellcheck", "make", "cmake", "ninja", "meson", "bazel", "gcc",
    "g++", "clang", "clang++", "javac", "rustc", "gradle", "./gradlew", "mvn", "dotnet", "just"})
# ...and these only with one of these subcommands.
_CHECK_SUBCOMMANDS = {
    "cargo": {"test", "build", "check", "clippy", "nextest", "run"}, "go": {"test", "build", "vet"},
    "npm": {"test", "t", "run", "run-script", "ci"}, "pnpm": {"test", "t", "run", "build", "lint"},
    "yarn": {"test", "run", "build", "lint"}, "bun": {"test", "run", "build"}, "deno": {"test", "check", "lint"},
    "dart": {"test", "analyze"}, "flutter": {"test", "analyze", "build"}, "swift": {"test", "build"},
}
# Programs that look (list, search, read, show processes): their failure is the agent feeling its way.
_PROBE_PROGRAMS = frozenset({
    "ls", "rg", "grep", "egrep", "fgrep", "ag", "ack", "find", "fd", "locate", "ps", "pgrep", "pidof", "lsof", "cat",
    "head", "tail", "less", "sed", "awk", "nl", "wc", "stat", "file", "which", "whereis", "type", "command", "test",
    "[", "tree", "du", "df", "readlink", "realpath", "pwd", "printenv", "diff", "cmp", "jq", "sort", "uniq"})
_PROBE_GIT = frozenset({"status", "log", "show", "diff", "grep", "ls-files", "rev-parse", "branch", "blame", "describe",
                        "remote", "config"})
# Tools that read, search or list by name (Read, Glob, Grep, LS, read_file, list_dir, WebFetch, …).
_PROBE_TOOL_PREFIXES = ("read", "glob", "grep", "search", "find", "list", "ls", "view", "web", "fetch", "open_file")
# Tools that wait on, or type into, a command already running (Codex): not an action of their own.
POLLS = frozenset({"write_stdin"})
# What a sandbox says when it refuses a command.
_SANDBOX = ("operation not permitted", "not permitted by the sandbox", "sandbox denied", "blocked by sandbox")


def command_key(command: str) -> tuple[str, ...]:
    """The program a command line runs (the first of a `cd x && …` chain's parts that names
    one), past environment assignments and runners, with its subcommand for the tools that
    have them."""
    try:
        words = shlex.split(command.strip().splitlines()[0] if command.strip() else "")
    except ValueError:
        words = command.split()
    parts: list[list[str]] = [[]]
    for word in words:
        if word in ("&&", ";", "||", "|"):
            parts.append([])
        else:
            parts[-1].append(word)
    chosen = next((part for part in parts if part and part[0] != "cd"), words)
    rest = [word for word in chosen if "=" not in word.split("/")[0] or word.startswith("-")]
    while rest and rest[0] in _RUNNERS:
        rest = rest[1:]
    if not rest:
        return ("",)
    program = rest[0].rsplit("/", 1)[-1] if not rest[0].startswith("./") else rest[0]
    subcommand = next((word for word in rest[1:] if not word.startswith("-")), None)
    return (program, subcommand) if program in _WITH_SUBCOMMAND and subcommand else (program,)


def is_refusal(call: ToolCall) -> bool:
    """The user refused the call (it never ran, model.DECLINED): not a failure of the agent's."""
    return call.declined


def is_poll(call: ToolCall) -> bool:
    return call.name in POLLS


def failure_kind(call: ToolCall) -> int:
    """The kind of a failed call that is not a refusal."""
    output = ansi.plain((call.output or "")[-2000:]).lower()
    if is_poll(call) or any(phrase in output for phrase in _SANDBOX):
        return PROBE
    if is_command(call):
        program = command_key(call.code or "")
        if program[0] in _CHECK_PROGRAMS or (len(program) > 1 and program[1] in _CHECK_SUBCOMMANDS.get(program[0], ())):
            return CHECK
        if program[0] in _PROBE_PROGRAMS or (program[0] == "git" and len(program) > 1 and program[1] in _PROBE_GIT):
            return PROBE
        # a search that found nothing: exit 1 and not a word of output (the log's own
        # "Exit code 1" line aside)
        if call.exit_code == 1 and not [line for line in output.splitlines() if line.strip() and line.strip() != "exit code 1"]:
            return PROBE
        return COMMAND
    if call.name.lower().startswith(_PROBE_TOOL_PREFIXES) and not call.changes:
        return PROBE
    return CALL
