"""The package is grouped by stage (docs/CONTRIBUTING.md, "Flow and layout"): imports run
only down the floors below, never up and never in a circle, lazy imports included."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "generator" / "replay_site"
# Lowest floor first; a part imports only from its own folder or from lower floors.
FLOORS = [
    {"__init__"},
    {"model", "ansi", "measures", "catalogue", "installed"},
    {"model_text", "diffs", "costs", "figures"},
    {"readers", "redact", "store"},
    {"discover", "pages"},
    {"archive"},
    {"load"},
    {"runtime"},
    {"pipeline"},
    {"cli"},
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
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("replay_site"):
                assert node.level == 0, f"{name}: relative import"
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.add(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names if alias.name.startswith("replay_site")}
        graph[name] = {target for target in targets if target != name}
    return graph


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
