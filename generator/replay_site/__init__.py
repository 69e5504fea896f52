"""replay-site: static HTML replays of AI coding agent sessions, and the library behind them.

What a script uses is named in `__all__` (api.py has the details):

- loading: `iter_sessions(sources=None, options=None, problems=None)` every session under some
  logs, `load_session(reference=None, sources=None, options=None)` one by path, id or latest,
  `ReadOptions` how they are read, `default_sources()` and `examples_dir()` where logs are;
- building: `build_site(sources=None, out="site", **options)`, what `replay-site build` does;
- the model: `Session`, `Step`, `ToolCall`, `FileChange`, `Usage`, `Cost`, `Problem`;
  `DiscoveryError` when a source holds no session.

Read the bundled example sessions, look into one, and build their site:

    >>> import tempfile
    >>> from pathlib import Path
    >>> import replay_site
    >>> examples = replay_site.examples_dir()
    >>> sessions = list(replay_site.iter_sessions(examples))
    >>> sorted({session.format for session in sessions})
    ['atif', 'claude', 'codex', 'gemini', 'glue', 'gptme', 'qwen', 'rlm']
    >>> fix = replay_site.load_session("5b1e7c2a-3f4d-4e6a-9b8c-0d1e2f3a4b5c", examples)
    >>> fix.title, len(fix.steps), fix.usage.output, [child.title for child in fix.children]
    ('Fix calc.add sign bug', 16, 595, ['Find other operator bugs'])
    >>> [(change.path, change.kind) for step in fix.steps for call in step.tool_calls for change in call.changes]
    [('/home/dev/calc-demo/calc.py', 'modify'), ('/home/dev/calc-demo/NOTES.md', 'add')]
    >>> out = Path(tempfile.mkdtemp()) / "site"
    >>> result = replay_site.build_site(examples, out, title="Examples")
    >>> len(result.summaries), result.steps, result.problems, (out / "index.html").is_file()
    (11, 67, [], True)

The names are imported on first use: `import replay_site` alone loads no reader and no
template library (the console entry's "nothing changed" answer imports this package).
"""
from replay_site.caches import cache_folder, replace_file_at_once  # noqa: F401 - as before, for scripts
from replay_site.version import __version__


# The library (api.py, whose __all__ this is with __version__), imported when a name of it is first asked for.
__all__ = ["__version__", "ReadOptions", "iter_sessions", "load_session", "default_sources", "examples_dir",  # noqa: RUF022
           "build_site", "Session", "Step", "ToolCall", "FileChange", "Usage", "Cost", "Problem", "DiscoveryError"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from replay_site import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
