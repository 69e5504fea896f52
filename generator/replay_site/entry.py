"""The `replay-site` console entry: a `build` that would change nothing is answered from the
last build's site record (cache.py) before typer, the readers, jinja2, pygments or the
price table are imported; everything else goes to the typer app (cli.py).

Nothing changed means: the same command line (options, working directory, the environment
variables that move the agents' folders), the same package code, the same files under the
sources, the theme, the prices file and the page libraries' metadata, each with the stat it
had when the last build started or, when only that moved (a touched file), the same size and
content digest; the agents' default folders existing as they did, and every file that build
wrote still as it left it. A touched file's new stat is remembered, so the next run does not
hash it again. Anything this module does not understand runs the full command.
"""
from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import orjson

from .ansi import for_terminal  # standard library only, like everything this module imports
from .site_record import code_digest, output_states, same_listing, site_record_path, tree_listing, write_json

# build options that shape the site: spelling -> name, and whether each takes a value
_BUILD_OPTIONS = {"-o": ("out", True), "--out": ("out", True), "-f": ("format", True), "--format": ("format", True),
                  "--theme": ("theme", True), "--title": ("title", True), "--prices": ("prices", True),
                  "--redact": ("redact", False), "--no-redact": ("redact", False)}
# options that change no byte of the site, and whether each takes a value
_NOT_IN_SITE = {"-q": False, "--quiet": False, "-j": True, "--jobs": True}
# where the readers look by default depends on these (HOME, CODEX_HOME, XDG_DATA_HOME, ...)
_FOLDER_VARIABLES = re.compile(r"HOME|XDG_|CLAUDE|CODEX|GPTME|GLUE|RLM")


def main() -> None:
    request = _build_request(sys.argv[1:])
    if request is not None and _answer_unchanged(*request):
        return
    started_ns = time.time_ns()
    from .cli import app

    try:
        app()
    except SystemExit as exit_:
        if request is not None and exit_.code in (0, None):
            _stamp(request[1], request[0], started_ns)
        raise


def _build_request(argv: list[str]) -> tuple[str, Path, bool] | None:
    """(key of the command line, output folder, quiet) for a `build` this module understands.
    The key is what the command means (sources in order, each option's last value), so that
    `-o site -q` and `-q --out site` are the same build."""
    if not argv or argv[0] != "build":
        return None
    sources, options, quiet = [], {}, False
    arguments = iter(argv[1:])
    for argument in arguments:
        if not argument.startswith("-"):
            sources.append(argument)
            continue
        spelling, has_value, value = argument.partition("=")
        if has_value and not spelling.startswith("--"):
            return None  # click reads `-o=x` as the value "=x"; not worth copying
        if spelling in _NOT_IN_SITE:
            quiet = quiet or spelling in ("-q", "--quiet")
            if _NOT_IN_SITE[spelling] and not has_value and next(arguments, None) is None:
                return None
            continue
        if spelling not in _BUILD_OPTIONS:
            return None  # --full, --compare, --help, typos: typer's business
        name, takes_value = _BUILD_OPTIONS[spelling]
        if not takes_value:
            if has_value:
                return None
            value = spelling
        elif not has_value and (value := next(arguments, None)) is None:
            return None
        options[name] = value
    environment = sorted((k, v) for k, v in os.environ.items() if _FOLDER_VARIABLES.search(k))
    key = orjson.dumps([os.getcwd(), environment, sources, sorted(options.items())]).decode()
    return key, Path(options.get("out", "site")), quiet


def _answer_unchanged(key: str, out: Path, quiet: bool) -> bool:
    try:
        record = orjson.loads(site_record_path(out).read_bytes())
        listing = tree_listing([Path(path) for path in record["inputs"]])
        unchanged = (
            record["request"] == key
            and all(os.path.isdir(folder) == existed for folder, existed in record["default_folders"].items())
            and same_listing(record["listing"], listing)
            and output_states(out, set(record["outputs"])) == record["outputs"]
            and record["code"] == code_digest()
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    if not unchanged:
        return False
    if listing != record["listing"]:  # touched files: their new stat, so they are not hashed again
        write_json(site_record_path(out), orjson.dumps({**record, "listing": listing}))
    if not quiet:
        for problem in record["problems"]:
            print(f"warning: {for_terminal(problem, color=False)}", file=sys.stderr)
    print(f"Nothing changed since the last build: {record['sessions']} sessions, {record['steps']} steps, "
          f"{len(record['problems'])} warnings -> {out / 'index.html'}")
    return True


def _stamp(out: Path, key: str, started_ns: int) -> None:
    """Mark the record the build just wrote as the answer to this command line."""
    path = site_record_path(out)
    try:
        record = orjson.loads(path.read_bytes())
    except (OSError, ValueError):
        return
    if isinstance(record, dict) and record.get("started_ns", 0) >= started_ns:
        record["request"] = key
        write_json(path, record)
