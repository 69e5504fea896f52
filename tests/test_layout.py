"""The package is grouped by stage (docs/CONTRIBUTING.md, "Flow and layout"): imports run
only down the floors below, never up and never in a circle, lazy imports included. The one
exception is the package root's `__getattr__`, which hands out the library's names (api.py,
on the top floor) when first asked for."""
from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "generator" / "replay_site"
# Lowest floor first; a part imports only from its own folder or from lower floors.
FLOORS = [
    {"caches", "version"},  # standard library only: what the package root re-exports
    {"__init__"},
    {"runtime"},  # how a build runs: imports nothing of the package, and only the pipeline and cli/ import it
    {"model", "ansi", "measures", "catalogue", "installed"},
    {"model_text", "diffs", "costs", "figures", "reader_folders", "atif_export"},
    {"readers", "redact", "store"},
    {"discover", "pages"},
    {"archive"},
    {"load"},
    {"pipeline"},
    {"cli", "api"},
]
FLOOR = {part: level for level, parts in enumerate(FLOORS) for part in parts}


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Each module of the package -> the package modules it imports (anywhere in its code)."""
    modules = {_module(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for node in _nodes(ast.parse(path.read_text()), root=name == "replay_site"):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("replay_site"):
                assert node.level == 0, f"{name}: relative import"
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.add(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names if alias.name.startswith("replay_site")}
        graph[name] = {target for target in targets if target != name}
    return graph


def _nodes(tree: ast.Module, root: bool) -> list[ast.AST]:
    """Every node of `tree`; in the package root, none of its `__getattr__` (the lazy face)."""
    lazy = [node for node in tree.body if root and isinstance(node, ast.FunctionDef) and node.name == "__getattr__"]
    left_out = {id(inner) for node in lazy for inner in ast.walk(node)}
    return [node for node in ast.walk(tree) if id(node) not in left_out]


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_part_has_a_floor():
    graph = _imports()
    assert "replay_site.load" in graph["replay_site.pipeline.stages"]  # the graph is read, lazy imports too
    assert {_part(module) for module in graph} <= set(FLOOR)


def test_imports_run_only_down_the_floors():
    upward = [f"{module} -> {target}" for module, targets in _imports().items() for target in targets
              if _part(target) != _part(module) and FLOOR[_part(target)] >= FLOOR[_part(module)]]
    assert upward == []


def test_no_import_circle():
    graph = _imports()
    state: dict[str, int] = {}
    circles = []

    def visit(module: str, trail: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                circles.append(trail[trail.index(target):] + [target] if target in trail else [module, target])
            elif target not in state:
                visit(target, trail + [target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert circles == []


RUNTIME_USERS = {"runtime", "pipeline", "cli"}
# Processes, pools, the collector, memory and C calls: how a build runs, which runtime/ alone owns.
RUNTIME_CODE = re.compile(r"os\.fork\b|register_at_fork|\bmultiprocessing\b|concurrent\.futures|\bgc\.|^\s*import gc\b"
                          r"|\bctypes\b|/proc/|malloc_trim|madvise|\bsignal\.SIG_IGN", re.MULTILINE)


def test_only_the_runtime_forks_pools_or_tunes_memory():
    places = {path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py") if RUNTIME_CODE.search(path.read_text())}
    assert places and all(place.startswith("runtime/") for place in places), places


def test_only_the_pipeline_and_the_command_line_use_the_runtime():
    users = {_part(module) for module, targets in _imports().items() for target in targets if _part(target) == "runtime"}
    assert users <= RUNTIME_USERS and "pipeline" in users
