"""The import graph of evald and evald_client has no cycles, between modules or packages.

Built from the source: every module-level import (``if TYPE_CHECKING:`` blocks left out, since
they never run), with ``from package import name`` counted as an import of ``package.name`` when
that is a module. A cycle is printed in full.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"evald": ROOT / "server" / "evald", "evald_client": ROOT / "client" / "evald_client"}


def modules() -> dict[str, Path]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def top_level_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports that run when the module is imported: not inside functions or TYPE_CHECKING."""
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                pending += [*node.body, *node.orelse]
        elif isinstance(node, ast.Try):
            pending += [*node.body, *node.orelse, *node.finalbody]
            for handler in node.handlers:
                pending += handler.body


def graph() -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in top_level_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            for target in targets:
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):
                    edges[name].add(target)
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def test_the_graph_is_read() -> None:
    edges = graph()
    assert "evald.call" in edges["evald.service"]
    assert "evald.judges.runtime" in edges["evald.app"]


def test_no_import_cycles() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def package_of(module: str) -> str:
    """``evald.metrics.base`` -> ``evald.metrics``; top-level modules stand for themselves."""
    return ".".join(module.split(".")[:2])


def test_no_cycles_between_packages() -> None:
    """Modules of one package may import each other; packages form layers."""
    packages: dict[str, set[str]] = {}
    for module, targets in graph().items():
        edges = packages.setdefault(package_of(module), set())
        for target in targets:
            packages.setdefault(package_of(target), set())
            if package_of(target) != package_of(module):
                edges.add(package_of(target))
    cycle = find_cycle(packages)
    assert cycle is None, "packages import each other: " + " -> ".join(cycle or [])


def test_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
