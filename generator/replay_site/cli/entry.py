"""The `replay-site` console entry: a `build` that would change nothing is answered from the
last build's site record (the site part of the output folder's state file:
store/state_file.py) before typer, the readers, jinja2, pygments or
the price table are imported, with the standard library alone (the record is read with json:
importing orjson first, ~12 ms, delayed the secret scanner's start after one appended turn).

Nothing changed means: the same command line (options, working directory), the readers
looking where they looked (reader_folders.py: the environment variables every reader, plugins
included, declares as moving its folders; the same plugins), the same package code, the same
files under the sources, the theme, the prices file and the page libraries' metadata, each
with the stat it had when the last build started or, when only that moved (a touched file),
the same size and content digest; the agents' default folders existing as they did, and
every file that build wrote still as it left it. A touched file's new stat is remembered,
so the next run does not hash it again. A build whose command line this module understands
but cannot answer so runs without typer (build_command.py), and its record names that command
line; any other command goes to the typer app (app.py).
"""
from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any, NamedTuple

# standard library only, like everything this module imports
from replay_site.pipeline import options
from replay_site.reader_folders import readers_unchanged
from replay_site.store.file_state import states_from_json, states_to_json
from replay_site.store.state_file import read_site, replace_site, state_path
from replay_site.store.states import changed_files, code_digest, hand_over, hand_over_request, output_states, tree_listing



class _Request(NamedTuple):
    key: str  # what the command line means, whatever its spelling
    out: Path
    quiet: bool
    arguments: dict[str, Any]  # build_command.build's


_STOPPED_BY: list[int] = []  # the signal that stopped this command, if one did


def _stop(signum: int, _frame: Any) -> None:
    """Ctrl-C and SIGTERM unwind the same way (the staging folder is removed on the way out)
    and end with the shell's status for the signal, 128 + its number, whichever path ran."""
    _STOPPED_BY.append(signum)
    raise KeyboardInterrupt


def main() -> None:
    request = _build_request(sys.argv[1:])
    if request is not None and _answer_unchanged(request):
        return
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    try:
        if request is None:
            from replay_site.cli.app import app

            app()
        else:  # a command line understood here needs no typer (nor its ~0.1 s of parsing)
            if request.arguments["redact"] and not request.arguments["scheduler"]:
                from replay_site import catalogue

                catalogue.start_loading()  # beside the build's imports (pipeline/stages.py starts it otherwise)
            from replay_site.cli.build_command import build

            hand_over_request(request.key)
            build(**request.arguments)
    except KeyboardInterrupt:  # as click ends a command on Ctrl-C
        print("\nAborted!", file=sys.stderr)
        raise SystemExit(128 + (_STOPPED_BY or [signal.SIGINT])[0]) from None
    except SystemExit:
        if _STOPPED_BY:  # click turned the interrupt into "Aborted!" and status 1
            raise SystemExit(128 + _STOPPED_BY[0]) from None
        raise


def _build_request(argv: list[str]) -> _Request | None:
    """The `build` this module understands, else None (typer's business). The key is what
    the command means (sources in order, each option's last value), so that `-o site -q`
    and `-q --out site` are the same build."""
    if not argv or argv[0] != "build":
        return None
    sources, given = [], {}
    arguments = iter(argv[1:])
    for argument in arguments:
        if not argument.startswith("-"):
            if "://" in argument:
                return None  # a URL: nothing on this disk to tell it unchanged by
            sources.append(argument)
            continue
        spelling, has_value, value = argument.partition("=")
        if has_value and not spelling.startswith("--"):
            return None  # click reads `-o=x` as the value "=x"; not worth copying
        option = options.BY_SPELLING.get(spelling)
        if option is None or not option.fast:
            return None  # --full, --compare, --help, typos: typer's business
        if option.kind in ("flag", "switch"):
            if has_value:
                return None
            given[option.name] = not spelling.startswith("--no-")
            continue
        if not has_value and (value := next(arguments, None)) is None:
            return None
        if option.value_type is int and not value.isdigit():
            return None  # not a count: typer's error message
        if option.url and "://" in value:
            return None
        given[option.name] = option.value_type(value)
    meaning = sorted((name, str(value)) for name, value in given.items() if options.BY_NAME[name].shapes_site)
    key = json.dumps([os.getcwd(), sources, meaning])  # the readers' folder variables: the record's "readers"
    build = {**options.DEFAULTS, **given, "sources": [Path(source) for source in sources] or None}
    return _Request(key, build["out"], build["quiet"], build)


def _answer_unchanged(request: _Request) -> bool:
    """Answer the build from the record when nothing changed."""
    try:
        record = read_site(state_path(request.out))
        inputs = [Path(path) for path in record["inputs"]]
        listing = tree_listing(inputs)
        changed = changed_files(states_from_json(record["listing"]), listing)
        # when files changed, a build follows whatever these say: the outputs' stats (~1,000
        # on the medium corpus) and the code digest are then left to it
        same_elsewhere = changed == [] and (
            record["request"] == request.key
            and readers_unchanged(record["readers"])
            and all(os.path.isdir(folder) == existed for folder, existed in record["default_folders"].items())
            and output_states(request.out, set(record["outputs"])) == record["outputs"]
            and record["code"] == code_digest()
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    if not same_elsewhere:
        hand_over(inputs, listing)  # not listed twice when the build's inputs are the same
        return False
    if (seen := states_to_json(listing)) != record["listing"]:  # touched files: their new stat, so they are not hashed again
        replace_site(state_path(request.out), {**record, "listing": seen})
    if not request.quiet:
        from replay_site.ansi import for_terminal

        for problem in record["problems"]:
            print(f"warning: {for_terminal(problem, color=False, line=True)}", file=sys.stderr)
    print(f"Nothing changed since the last build: {record['sessions']} sessions, {record['steps']} steps, "
          f"{len(record['problems'])} warnings -> {request.out / 'index.html'}")
    return True

