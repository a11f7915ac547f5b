"""The package's shape, read from its source with :mod:`ast` (nothing is imported).

Four rules keep acecode a house one can find one's way in (issue 21,
docs/architecture.md):

* no import circles between modules. Every ``import`` counts, at module level and
  inside functions alike (a function-level import is still a dependency; it only
  runs later). Imports under ``if TYPE_CHECKING:`` are left out: they never run.
  Importing ``a.b.c`` also runs ``a/b/__init__.py``; that implicit parent import is
  not counted, only the module named;
* at most 8 modules at the package root: the public face and the entry points;
* no source module over 500 lines;
* the package that holds a project's state (``acecode.project``) imports nothing
  in its ``__init__``: the hooks import its small modules, and a heavy package
  ``__init__`` would be paid on every prompt. The hook path's own lazy-import
  guarantees are checked by running the real hook under ``-X importtime``
  (tests/hooks/test_hooks_inject.py, test_injection_budget_hooks.py,
  test_notice_states.py, test_arrivals.py, tests/experiments/test_holdback_hooks.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "acecode"
MAX_ROOT_MODULES = 8
MAX_LINES = 500


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The ids of every node under an ``if TYPE_CHECKING:`` (never run)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for inner in node.body for inner in ast.walk(inner))
    return skipped


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The acecode modules ``name`` imports, wherever the import statement stands."""

    def resolve(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_nodes(tree)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str | None] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(resolve(a.name) for a in node.names if a.name.startswith("acecode"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if source.split(".")[0] != "acecode":
                continue
            for alias in node.names:
                full = f"{source}.{alias.name}"
                found.add(full if full in modules else resolve(source))
    found.discard(None)
    found.discard(name)
    return {module for module in found if module is not None}


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles


def test_the_graph_sees_imports_inside_functions() -> None:
    """The control for the circle test: a function-level import is an edge too."""
    graph = import_graph()
    assert "acecode.cli.app" in graph["acecode.cli"]  # imported inside main()


def test_no_import_circles() -> None:
    circles = import_circles(import_graph())
    assert circles == [], "modules that import each other: " + "; ".join(
        " <-> ".join(circle) for circle in circles
    )


def test_at_most_eight_modules_at_the_package_root() -> None:
    root = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, f"{len(root)} modules at src/acecode/: {root}"


def test_no_source_module_over_500_lines() -> None:
    long = {
        name: lines
        for name, path in _modules().items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"modules over {MAX_LINES} lines: {long}"


def test_the_state_package_init_imports_nothing() -> None:
    init = PACKAGE / "project" / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"))
    imports = [
        ast.unparse(node)
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        if not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
    ]
    assert imports == [], f"acecode.project's __init__ imports {imports}"
