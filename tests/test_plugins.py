"""Plugin readers, registered as a third-party package registers them: a distribution's
dist-info folder with an entry_points.txt naming `module:READER` in the group
`replay_site.readers`, in a folder on PYTHONPATH, for a fresh process (the console entry or
the library). A plugin reads its logs like a built-in; the variables it declares as moving its
default folder are watched by the no-op build; one that fails to load is one warning, never a
failed command; one with a built-in's name is left out with a warning, the built-in kept."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from replay_site.readers import BUILTIN

GENERATOR = Path(__file__).resolve().parents[1] / "generator"
EXAMPLES = GENERATOR / "replay_site" / "examples"
BUILT_IN = sorted(BUILTIN)  # the built-in readers' names, as `formats` and the registry list them
ENTRY = "import sys\nfrom replay_site.cli.entry import main\nsys.argv = ['replay-site', *sys.argv[1:]]\nmain()\n"
# A format of its own: one JSON object per line, {"toy": "what the user said"}; the session
# is named by its file. Its folder is $TOY_HOME/logs, else ~/.toy/logs.
TOY_READER = '''
import json
import os
from pathlib import Path

from replay_site.model import Session, Step
from replay_site.readers import FileReader, SessionSource


class ToyReader(FileReader):
    name = "toy"
    label = "Toy agent"
    env_vars = ("TOY_HOME", "HOME")

    def default_dirs(self):
        home = os.environ.get("TOY_HOME")
        return [Path(home) / "logs" if home else Path.home() / ".toy" / "logs"]

    def detect(self, path, head):
        first = head.first_object()
        return True if isinstance(first, dict) and "toy" in first else None

    def group(self, found, root):
        return [SessionSource(self.name, path, root) for path in sorted(found)]

    def read_sessions(self, source):
        said = [json.loads(line)["toy"] for line in source.path.read_text().splitlines() if line.strip()]
        steps = [Step("user", text=text) for text in said]
        session = Session(id=source.path.stem, format=self.name, title=said[0], source=source.rel, steps=steps)
        session.number_steps()
        return [session]


READER = ToyReader()
'''


def install(folder: Path, distribution: str, points: dict[str, str], modules: dict[str, str]) -> None:
    """A distribution as pip leaves one in site-packages: its modules and its dist-info."""
    info = folder / f"{distribution}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {spec}\n" for name, spec in points.items())
    (info / "entry_points.txt").write_text(f"[replay_site.readers]\n{lines}")
    for module, source in modules.items():
        (folder / f"{module}.py").write_text(source)


def environment(tmp_path: Path, **variables: str) -> dict[str, str]:
    """A machine of the test's own: its home, no agent folder variable of the real one. The
    cache folder is this test session's (conftest.py): each site's record is its output
    folder's, what is installed is remembered with the state of the path, plugins included."""
    moved = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GPTME_LOGS_HOME", "XDG_DATA_HOME", "TOY_HOME")
    env = {name: value for name, value in os.environ.items() if name not in moved}
    (tmp_path / "home").mkdir(exist_ok=True)
    return {**env, "HOME": str(tmp_path / "home"), "PYTHONPATH": f"{GENERATOR}{os.pathsep}{tmp_path / 'plugins'}",
            **variables}


def run(tmp_path: Path, env: dict[str, str], *args: str, code: str = ENTRY, status: int = 0) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-c", code, *args], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == status, result.stderr
    return result


def toy_logs(folder: Path, name: str, said: str) -> None:
    (folder / "logs").mkdir(parents=True)
    (folder / "logs" / f"{name}.jsonl").write_text(f'{{"toy": "{said}"}}\n{{"toy": "and more"}}\n')


def warnings(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("warning:")]


def test_a_plugin_reader_s_folder_variable_is_watched_by_the_no_op_build(tmp_path):
    install(tmp_path / "plugins", "toy-replay", {"toy": "toy_reader:READER"}, {"toy_reader": TOY_READER})
    toy_logs(tmp_path / "a", "first", "hello from a")
    toy_logs(tmp_path / "b", "second", "hello from b")
    build = ("build", "-o", "site", "-q")  # no source: the readers' default folders
    at_a = environment(tmp_path, TOY_HOME=str(tmp_path / "a"))
    assert run(tmp_path, at_a, *build).stdout.startswith("Built 1 sessions, 2 steps, 0 warnings")
    assert run(tmp_path, at_a, *build).stdout.startswith("Nothing changed")
    # a variable no reader declares is not the readers' business (the old pattern took any CLAUDE*)
    assert run(tmp_path, {**at_a, "CLAUDE_CODE_THEME": "dark"}, *build).stdout.startswith("Nothing changed")
    at_b = environment(tmp_path, TOY_HOME=str(tmp_path / "b"))
    assert run(tmp_path, at_b, *build).stdout.startswith("Built 1 sessions")
    index = BeautifulSoup((tmp_path / "site" / "index.html").read_text(), "html.parser")
    assert "hello from b" in index.get_text() and "hello from a" not in index.get_text()
    assert run(tmp_path, at_b, *build).stdout.startswith("Nothing changed")
    # the plugin removed (its dist-info folder gone): its folder is not read any more
    shutil.rmtree(tmp_path / "plugins" / "toy-replay-1.0.dist-info")
    assert "No agent log folder found" in run(tmp_path, at_b, *build).stderr


LIBRARY = """
import replay_site
from replay_site.readers import registry
problems = []
sessions = list(replay_site.iter_sessions("logs", problems=problems))
print(sorted(registry()), [s.title for s in sessions], [str(p) for p in problems])
"""


@pytest.mark.parametrize("module, error", [
    ("import nowhere_to_be_found\n", "ModuleNotFoundError: No module named 'nowhere_to_be_found'"),
    ("raise RuntimeError('needs a licence key')\n", "RuntimeError: needs a licence key"),
    ("READY = True\n", "AttributeError: module 'broken_reader' has no attribute 'READER'"),
])
def test_a_plugin_that_fails_to_load_is_one_warning(tmp_path, module, error):
    install(tmp_path / "plugins", "broken-replay", {"broken": "broken_reader:READER"}, {"broken_reader": module})
    shutil.copytree(EXAMPLES / "gptme", tmp_path / "logs")
    env = environment(tmp_path)
    expected = f"warning: plugin reader 'broken' (broken_reader:READER) could not be loaded ({error}); left out"
    built = run(tmp_path, env, "build", "logs", "-o", "site")
    assert warnings(built) == [expected]
    assert built.stdout.startswith("Built 1 sessions, 10 steps, 1 warnings")
    listed = run(tmp_path, env, "formats")
    assert [line.split()[0] for line in listed.stdout.splitlines()] == BUILT_IN
    assert warnings(listed) == [expected]
    library = run(tmp_path, env, code=LIBRARY)
    assert library.stdout.strip() == (f"{BUILT_IN} ['Loud hello script'] "
                                      f"[{expected.removeprefix('warning: ')!r}]")


def test_an_error_a_left_out_plugin_may_explain_names_it(tmp_path):
    install(tmp_path / "plugins", "toy-replay", {"toy": "toy_reader:READER"}, {"toy_reader": "import nowhere_to_be_found\n"})
    toy_logs(tmp_path, "first", "hello")
    env = environment(tmp_path)
    failed = run(tmp_path, env, "build", "logs", "-o", "site", status=1)
    assert failed.stderr.splitlines()[0].startswith("error: ") and "logs: no readable session found; plugin reader 'toy'" in failed.stderr
    unknown = run(tmp_path, env, "build", "logs", "--format", "toy", status=1)
    assert f"unknown format 'toy'; known: {', '.join(BUILT_IN)}; plugin reader 'toy'" in unknown.stderr


# Reads any JSONL as its own; registered under a name that is not its own, or a built-in's.
GREEDY = TOY_READER.replace('first = head.first_object()\n        return True if isinstance(first, dict) and "toy" in first else None',
                            "return True")


@pytest.mark.parametrize("point, reader_name, why", [
    ("gptme", "gptme", "has the name of a built-in reader, which is kept"),
    ("mine", "claude", "reads logs as 'claude', not by its entry point's name"),
])
def test_a_plugin_cannot_shadow_a_built_in(tmp_path, point, reader_name, why):
    assert GREEDY != TOY_READER
    greedy = GREEDY.replace('name = "toy"', f'name = "{reader_name}"')
    install(tmp_path / "plugins", "greedy-replay", {point: "greedy_reader:READER"}, {"greedy_reader": greedy})
    shutil.copytree(EXAMPLES / "gptme", tmp_path / "logs")
    env = environment(tmp_path)
    expected = f"warning: plugin reader {point!r} (greedy_reader:READER) {why}; left out"
    built = run(tmp_path, env, "build", "logs", "-o", "site")
    assert warnings(built) == [expected]
    index = BeautifulSoup((tmp_path / "site" / "index.html").read_text(), "html.parser")
    assert "Loud hello script" in index.get_text()  # the built-in read it
    check = "from replay_site.readers import registry\nfrom replay_site.readers.gptme.reader import READER\n" \
            "print(registry()['gptme'] is READER, sorted(registry()))"
    assert run(tmp_path, env, code=check).stdout.strip() == f"True {BUILT_IN}"


def _registry_with(tmp_path, monkeypatch, points: list[tuple[str, str]], modules: dict[str, str]) -> tuple[dict, list[str]]:
    """The registry, in this process, with `points` as the entry points of plugin readers."""
    from replay_site import installed, readers

    for module, source in modules.items():
        (tmp_path / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(installed, "entry_points", lambda group: points if group == "replay_site.readers" else [])
    readers._loaded.cache_clear()
    try:
        return dict(readers.registry()), [str(problem) for problem in readers.plugin_problems()]
    finally:
        readers._loaded.cache_clear()  # the real registry again for the tests that follow
        monkeypatch.undo()
        for module in modules:
            sys.modules.pop(module, None)
        assert "toy" not in readers.registry()


def test_of_two_plugins_of_one_name_the_first_is_kept(tmp_path, monkeypatch):
    """importlib.metadata gives one entry point of a name on Python 3.11, each of two
    distributions' on later ones: the registry is asked with both."""
    found, problems = _registry_with(tmp_path, monkeypatch, [("toy", "toy_reader:READER"), ("toy", "toy_fork:READER")],
                                     {"toy_reader": TOY_READER, "toy_fork": GREEDY})
    assert type(found["toy"]).__module__ == "toy_reader"
    assert problems == ["plugin reader 'toy' (toy_fork:READER) has the name of another plugin reader, loaded before it; left out"]


def test_a_plugin_that_is_not_a_reader_is_left_out(tmp_path, monkeypatch):
    half = TOY_READER.replace("    def group(self, found, root):", "    def grouped(self, found, root):")
    found, problems = _registry_with(tmp_path, monkeypatch, [("toy", "toy_reader:READER"), ("tool", "toy_tool:READER")],
                                     {"toy_reader": half, "toy_tool": "class READER:\n    name = 'tool'\n"})
    assert "toy" not in found and "tool" not in found
    assert problems == ["plugin reader 'toy' (toy_reader:READER) is not a reader (it has no group); left out",
                        "plugin reader 'tool' (toy_tool:READER) is not a reader (it has no label, default_dirs, detect, group, read); left out"]


def test_the_no_op_path_asks_importlib_metadata_only_when_the_path_changed(monkeypatch):
    """reader_folders.readers_unchanged with what is installed stood in for: a changed path
    is a changed reader while any plugin is registered (it may be its upgrade)."""
    from replay_site import installed, reader_folders

    monkeypatch.setenv("TOY_HOME", "/logs/a")
    asked, now = [], {"path": [["/site-packages", 1]], "plugins": []}
    monkeypatch.setattr(installed, "path_state", lambda: now["path"])
    monkeypatch.setattr(installed, "entry_points", lambda group: asked.append(group) or now["plugins"])
    recorded = reader_folders.readers_state([type("Toy", (), {"env_vars": ("TOY_HOME",)})()])
    assert recorded["variables"] == {"HOME": os.environ.get("HOME"), "TOY_HOME": "/logs/a"}
    asked.clear()
    assert reader_folders.readers_unchanged(recorded) and asked == []
    monkeypatch.setenv("TOY_HOME", "/logs/b")
    assert not reader_folders.readers_unchanged(recorded)
    monkeypatch.setenv("TOY_HOME", "/logs/a")
    now["path"] = [["/site-packages", 2]]  # something installed, not a plugin reader
    assert reader_folders.readers_unchanged(recorded) and asked == ["replay_site.readers"]
    now["plugins"] = [["toy", "toy_reader:READER"]]  # a plugin reader installed
    assert not reader_folders.readers_unchanged(recorded)
    with_plugin = reader_folders.readers_state([])
    assert reader_folders.readers_unchanged(with_plugin)
    now["path"] = [["/site-packages", 3]]  # the same plugin, maybe upgraded
    assert not reader_folders.readers_unchanged(with_plugin)
