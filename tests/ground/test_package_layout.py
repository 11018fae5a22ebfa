"""The package's layout as DESIGN.md draws it ("Parts"), read from the source: which room imports
which, no import circle, how long a module and a function may grow, where format names are split.
A change that breaks one of these reads as a structure change in review, not as a detail of the
module it touched.

An import counts wherever it is written: at the top, inside a function, under ``TYPE_CHECKING``.
An import inside a function keeps a heavy library (python-docx, pandoc's machinery) from loading
until it is needed; it does not make a circle go away, so the circle check sees it as any other.
Importing ``a.b.c`` also runs the ``__init__.py`` of ``a.b``, so that counts as an edge too,
except from inside ``a.b`` itself (its package is already being set up by then)."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from tests.helpers import ROOT

PACKAGE = ROOT / "citeledger"
TESTS = ROOT / "tests"
# The rooms that build and place; they call the verifier through its package, never its parts.
BUILDERS = ("filters", "renderers", "publish", "edit")
# The ledger core: the standard library, filelock and these ground-floor modules only (files:
# the one safe write, which writes the ledger and its evidence texts too).
LEDGER_MAY_IMPORT = {"ledger", "errors", "escape", "files", "atomic"}
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 600
# Folder names that tools take for build output or environments and skip: pytest's default
# norecursedirs, black's default excludes, GitHub's Python .gitignore template.
BUILD_OUTPUT_NAMES = {
    "build", "dist", "lib", "lib64", "env", "venv", "ENV", "eggs", "develop-eggs", "downloads",
    "parts", "sdist", "var", "wheels", "htmlcov", "site", "target", "out", "node_modules",
    "_build", "buck-out", "site-packages",
}  # fmt: skip
# Top-level modules that are an edge, imported by no room: the programs' entry points.
ENTRY_POINTS = {"citeledger", "citeledger.__main__", "citeledger.cli", "citeledger.mcp"}
# Below the ground floor: the steps of the one safe write, which files.py wraps for every room
# and the ledger's fast lane calls as they are (it loads no pathlib, which files.py needs).
GROUND_STEPS = {"citeledger.atomic"}


def _modules() -> list[tuple[str, bool, ast.Module]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        found.append((".".join(parts), is_package, ast.parse(path.read_text(encoding="utf-8"))))
    return found


def _imports(name: str, is_package: bool, tree: ast.Module) -> set[str]:
    """Every citeledger module or package ``name`` imports, relative imports resolved; a name
    imported from a package may be a module (``from . import base``)."""
    package = name if is_package else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("citeledger"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("citeledger"):
                continue
            out.add(target)
            if node.module is None:  # from . import a: a may be a submodule
                out.update(f"{target}.{a.name}" for a in node.names)
    return out


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "citeledger"


def test_builders_reach_the_verifier_through_its_package_not_its_parts() -> None:
    offenders = [
        f"{name} imports {target}"
        for name, is_package, tree in _modules()
        if _room(name) in BUILDERS
        for target in _imports(name, is_package, tree)
        if target.startswith("citeledger.verify.")
    ]
    assert offenders == []


def test_no_two_rooms_import_each_other() -> None:
    edges: dict[str, set[str]] = defaultdict(set)
    for name, is_package, tree in _modules():
        for target in _imports(name, is_package, tree):
            if _room(name) != _room(target):
                edges[_room(name)].add(_room(target))
    both_ways = sorted(
        f"{a} <-> {b}" for a in edges for b in edges[a] if a < b and a in edges.get(b, set())
    )
    assert both_ways == []


def test_the_ledger_core_imports_only_itself_and_the_ground_floor() -> None:
    offenders = [
        f"{name} imports {target}"
        for name, is_package, tree in _modules()
        if _room(name) == "ledger"
        for target in _imports(name, is_package, tree)
        if _room(target) not in LEDGER_MAY_IMPORT
    ]
    assert offenders == []


def test_the_ledger_core_imports_no_pandoc_or_office_library() -> None:
    heavy = re.compile(r"^\s*(?:from|import)\s+(docx|pptx|panflute|pypandoc|typst|typer)\b", re.M)
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in (PACKAGE / "ledger").rglob("*.py")
        if heavy.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_no_function_runs_past_eighty_lines() -> None:
    long = [
        f"{name}.{node.name}: {node.end_lineno - node.lineno + 1} lines"
        for name, _, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


def test_format_names_are_split_only_by_the_formats_table() -> None:
    split = re.compile(r"""\.(?:split|partition|rsplit)\(\s*["']\+["']""")
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path != PACKAGE / "formats" / "__init__.py"
        and split.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def _edges() -> dict[str, set[str]]:
    """Module -> the modules whose code runs when it is imported: those it names, and the
    packages above them it is not inside of."""
    modules = _modules()
    known = {name for name, _, _ in modules}
    graph: dict[str, set[str]] = {}
    for name, is_package, tree in modules:
        inside = {name} if is_package else set()
        parts = name.split(".")
        inside |= {".".join(parts[:i]) for i in range(1, len(parts))}
        targets: set[str] = set()
        for target in _imports(name, is_package, tree):
            pieces = target.split(".")
            for i in range(2, len(pieces) + 1):
                step = ".".join(pieces[:i])
                if step in known and step != name and (step not in inside or i == len(pieces)):
                    targets.add(step)
        graph[name] = targets
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle_even_through_function_imports_or_package_inits() -> None:
    assert _circles(_edges()) == []


def test_the_circle_check_sees_a_circle_made_inside_a_function() -> None:
    """The check itself: two modules that import each other, one of them inside a function."""
    graph = {
        "citeledger.a": {"citeledger.b"},
        "citeledger.b": {"citeledger.a"},
        "citeledger": set(),
    }
    assert _circles(graph) == [["citeledger.a", "citeledger.b"]]
    a = ast.parse("def f():\n    from . import b\n")
    assert "citeledger.b" in _imports("citeledger.a", False, a)


def test_no_module_runs_past_six_hundred_lines() -> None:
    long = [
        f"{path.relative_to(PACKAGE)}: {count} lines"
        for path in sorted(PACKAGE.rglob("*.py"))
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert long == []


def test_no_folder_is_named_like_build_output() -> None:
    def folders(top: Path) -> list[Path]:
        return [p for p in top.rglob("*") if p.is_dir() and "__pycache__" not in p.parts]

    named = [
        str(path.relative_to(ROOT))
        for top in (PACKAGE, TESTS)
        for path in folders(top)
        if path.name in BUILD_OUTPUT_NAMES
    ]
    assert named == []


def test_no_public_class_name_is_defined_in_two_modules() -> None:
    homes: dict[str, list[str]] = defaultdict(list)
    for name, _, tree in _modules():
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                homes[node.name].append(name)
    assert {cls: where for cls, where in homes.items() if len(where) > 1} == {}


def test_a_top_level_module_is_shared_by_three_rooms_or_lives_in_a_room() -> None:
    users: dict[str, set[str]] = defaultdict(set)
    for name, targets in _edges().items():
        for target in targets:
            if target.count(".") == 1 and target != name and _room(name) != _room(target):
                users[target].add(_room(name))
    top_level = [
        name
        for name, is_package, _ in _modules()
        if name.count(".") == 1 and not is_package and name not in ENTRY_POINTS | GROUND_STEPS
    ]
    lonely = {name: sorted(users[name]) for name in top_level if len(users[name]) < 3}
    assert lonely == {}
