"""What kind of failure a failed call is, for picking the one that mattered (figures/failures.py):
a check (a test run, a build, a type check, a linter), another command, a step's own error,
another call (a code cell, an edit that missed), a probe (a search, list or read that found
nothing, a sandbox refusal, a poll of a finished command), or the user's refusal, which is not
a failure at all. From the call alone: its command's program, its tool's name, its output.
"""
from __future__ import annotations

import re
import shlex

from replay_site import ansi
from replay_site.figures.ledger import is_command
from replay_site.model import ToolCall

# The kinds, most telling first: the failure that mattered is of the first kind present.
CHECK, COMMAND, STEP, CALL, PROBE = range(5)
KIND_NAMES = ("check", "command", "step error", "call", "probe")

# Words that run the program named after them (and, for timeout/nice, a number before it).
_RUNNERS = frozenset({"python", "python3", "py", "-m", "uv", "uvx", "run", "poetry", "pipenv", "npx", "bunx", "bundle",
                      "exec", "sudo", "time", "env", "nice", "timeout", "dlx", "xvfb-run", "hatch", "pdm", "rye"})
# Parts of a chain that only set the stage (`cd app && source .venv/bin/activate && pytest`).
_SETUP = frozenset({"cd", "pushd", "popd", "source", ".", "export", "set", "unset", "ulimit", "echo", "true", "clear"})
# Shells whose `-c` script is the command itself (`bash -lc "npm test"`).
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "fish"})
# Programs whose first word after them says what they do (cargo test, npm run build).
_WITH_SUBCOMMAND = frozenset({"cargo", "go", "npm", "pnpm", "yarn", "bun", "make", "git", "dotnet", "mvn", "gradle",
                              "./gradlew", "./mvnw", "tox", "nox", "just", "deno", "dart", "flutter", "swift", "mix",
                              "rake", "sbt", "lein", "stack", "cabal", "zig", "php", "rails", "bin/rails", "nx", "turbo",
                              "docker", "podman"})
# Programs that test, build, type-check or lint whatever their arguments...
_CHECK_PROGRAMS = frozenset({
    "pytest", "py.test", "unittest", "nosetests", "tox", "nox", "jest", "vitest", "mocha", "ava", "karma", "playwright",
    "cypress", "rspec", "phpunit", "ctest", "tsc", "vue-tsc", "mypy", "pyright", "ruff", "flake8", "pylint", "eslint",
    "biome", "black", "isort", "prettier", "rubocop", "golangci-lint", "staticcheck", "shellcheck", "clippy-driver",
    "make", "cmake", "ninja", "meson", "bazel", "gcc", "g++", "clang", "clang++", "javac", "kotlinc", "rustc", "gradle",
    "./gradlew", "mvn", "./mvnw", "dotnet", "just", "stylelint", "hadolint", "yamllint", "markdownlint", "bats"})
# ...and any program run with one of these words (cargo test, go vet, npm run build:prod,
# mix test, php artisan test, python manage.py test, ./gradlew check).
_CHECK_WORDS = frozenset({"test", "tests", "t", "build", "check", "lint", "vet", "clippy", "typecheck", "type-check",
                          "tsc", "compile", "verify", "analyze", "nextest", "spec", "e2e", "fmt", "format"})
# Programs that run a script or a subcommand named after them (the words above count only there:
# `mkdir build` makes a folder, `node scripts/build.js` builds).
_SCRIPT_RUNNERS = frozenset({"node", "php", "ruby", "perl", "deno", "bun", "Rscript", "julia", "lua", "docker", "podman"})
# A script named like a test or check (`./run_tests.sh`, `python test_calc.py`, `scripts/lint.sh`).
_CHECK_SCRIPT = re.compile(r"(?:^|[/_.-])(?:tests?|lint|check|build|typecheck|spec)(?:[/_.-]|$)|^test_|_test\.py$", re.IGNORECASE)
# Programs that look (list, search, read, show processes): their failure is the agent feeling its way.
_PROBE_PROGRAMS = frozenset({
    "ls", "rg", "grep", "egrep", "fgrep", "ag", "ack", "find", "fd", "locate", "ps", "pgrep", "pidof", "lsof", "cat",
    "head", "tail", "less", "more", "sed", "awk", "nl", "wc", "stat", "file", "which", "whereis", "type", "command",
    "test", "[", "tree", "du", "df", "readlink", "realpath", "pwd", "printenv", "diff", "cmp", "jq", "yq", "sort",
    "uniq", "cut", "xxd", "od", "hexdump", "id", "whoami", "uname", "hostname", "date", "curl", "wget",
    "dir", "Get-ChildItem", "Get-Content", "Select-String", "where"})
_PROBE_GIT = frozenset({"status", "log", "show", "diff", "grep", "ls-files", "rev-parse", "branch", "blame", "describe",
                        "remote", "config", "ls-remote", "reflog", "cat-file", "show-ref"})
# Tools that read, search or list by name (Read, Glob, Grep, LS, read_file, list_dir, WebFetch, …).
_PROBE_TOOL_PREFIXES = ("read", "glob", "grep", "search", "find", "list", "ls", "view", "web", "fetch", "open_file")
# Tools that wait on, or type into, a command already running (Codex): not an action of their own.
POLLS = frozenset({"write_stdin"})
# What a sandbox says when it refuses a command.
_SANDBOX = ("operation not permitted", "not permitted by the sandbox", "sandbox denied", "blocked by sandbox")
# Subcommands that run what the next word names (npm run build, php artisan test, docker compose up).
_NAMED = frozenset({"run", "run-script", "exec", "artisan", "compose", "x"})
_NUMBER = re.compile(r"^\d+(?:\.\d+)?[smhd]?$")


def _parts(command: str, depth: int = 0) -> list[list[str]]:
    """The programs of a command line's chain (`a && b | c`), each with its words, past
    environment assignments, runners and a shell's `-c` script (read as its own line)."""
    text = command.strip()
    try:
        words = shlex.split(text.splitlines()[0] if text else "", comments=True)
    except ValueError:
        words = text.split()
    parts: list[list[str]] = [[]]
    for word in words:
        if word in ("&&", ";", "||", "|", "&", "|&"):
            parts.append([])
        else:
            parts[-1].append(word)
    found = []
    for part in parts:
        rest = [word for word in part if "=" not in word.split("/")[0] or word.startswith("-")]
        skipped = False
        while rest and (rest[0] in _RUNNERS or (skipped and _NUMBER.match(rest[0]))):  # `timeout 60 pytest`
            rest, skipped = rest[1:], True
        if not rest:
            continue
        program = rest[0].rsplit("/", 1)[-1] if not rest[0].startswith(("./", "bin/")) else rest[0]
        script = next((word for flag, word in zip(rest[1:], rest[2:]) if flag.startswith("-") and flag.endswith("c")), None)
        if program in _SHELLS and script is not None and depth < 2:
            found.extend(_parts(script, depth + 1))
        else:
            found.append([program, *rest[1:]])
    return found


def _main(parts: list[list[str]]) -> list[str]:
    """The part of a chain that does the work: the first check, else the first that is not setup."""
    return next((part for part in parts if _is_check(part)), None) or next((part for part in parts if part[0] not in _SETUP),
                                                                           parts[0] if parts else [""])


def command_key(command: str) -> tuple[str, ...]:
    """The program a command line runs (the chain's check, else its first part past `cd` and
    other setup), past environment assignments and runners, with its subcommand for the tools
    that have them: what a later run must match to be the same action."""
    main = _main(_parts(command))
    program, words = main[0], [word for word in main[1:] if not word.startswith("-")]
    if program in _SCRIPT_RUNNERS and words and words[0] not in _CHECK_WORDS:
        return (program, *words[:1 if program not in _WITH_SUBCOMMAND or words[0] not in _NAMED else 2])
    if program in _WITH_SUBCOMMAND and words:
        # `npm run build` and `npm run dev` are two actions: a runner's script is part of it
        return (program, *words[:2 if words[0] in _NAMED else 1])
    return (program,)


def _is_check(part: list[str]) -> bool:
    program, words = part[0], [word for word in part[1:4] if not word.startswith("-")]
    if program in _PROBE_PROGRAMS or (program == "git"):
        return False
    if program in _SHELLS and "-n" in part[1:]:  # `sh -n deploy.sh`: a syntax check
        return True
    if program in _CHECK_PROGRAMS or _CHECK_SCRIPT.search(program.rsplit("/", 1)[-1]):
        return True
    if not (program in _WITH_SUBCOMMAND or program in _SCRIPT_RUNNERS or "." in program or "/" in program):
        return False
    # the word after the program, or a script's subcommand (npm run test:unit, php artisan test)
    return any(word.split(":")[0] in _CHECK_WORDS or word in _CHECK_PROGRAMS or _CHECK_SCRIPT.search(word.rsplit("/", 1)[-1])
               for word in words[:2])


def _is_probe(part: list[str]) -> bool:
    program = part[0]
    subcommand = next((word for word in part[1:] if not word.startswith("-")), None)
    return program in _PROBE_PROGRAMS or (program == "git" and subcommand in _PROBE_GIT)


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
        parts = [part for part in _parts(call.code or "") if part[0] not in _SETUP]
        if any(_is_check(part) for part in parts):
            return CHECK
        if parts and all(_is_probe(part) for part in parts):
            return PROBE
        # a search that found nothing: exit 1 and not a word of output (the log's own
        # "Exit code 1" line aside)
        if call.exit_code == 1 and not [line for line in output.splitlines() if line.strip() and line.strip() != "exit code 1"]:
            return PROBE
        return COMMAND
    if call.name.lower().startswith(_PROBE_TOOL_PREFIXES) and not call.changes:
        return PROBE
    return CALL
