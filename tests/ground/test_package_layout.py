"""The package's layout as DESIGN.md draws it ("Parts"), read from the source: which room imports
which, where format names are split, how long a function may grow. A change that breaks one of
these reads as a structure change in review, not as a detail of the module it touched."""

from __future__ import annotations

import ast
import re
from collections import defaultdict

from tests.helpers import ROOT

PACKAGE = ROOT / "citeledger"
# The rooms that build and place; they call the verifier through its package, never its parts.
BUILDERS = ("filters", "renderers", "build")
# The ledger core: the standard library, filelock and these ground-floor modules only (outputs:
# the one safe write, which writes the ledger and its evidence texts too).
LEDGER_MAY_IMPORT = {"ledger", "errors", "escape", "files"}
MAX_FUNCTION_LINES = 80


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
    """Every citeledger module or package ``name`` imports, relative imports resolved."""
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
        if path.name != "formats.py" and split.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
