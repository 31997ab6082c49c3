"""Structure rules of the package (issue 13), checked on the source with ``ast`` so they stay true.

* bench plugins are independent: no plugin imports another; every ``run`` has a docstring and is under 60 lines;
  the seed's figures are attached through the one shared helper (``add_seed_figures``), never written directly;
* markdown tables are built by ``debiasrag.markdown.md_table`` only;
* only ``debiasrag/resources.py`` finds the packaged data (no ``importlib.resources`` / ``__file__`` elsewhere);
* library errors (outside ``cli.py`` and ``commands/``) never name a command-line flag.

Each checker is also run on a small violating snippet, so a checker that stopped finding anything fails too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "debiasrag"
BENCH = PACKAGE / "bench"
MAX_RUN_LINES = 60
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _is_plugin(tree: ast.Module) -> bool:
    """A benchmark plugin defines ``NAME`` and ``run`` at module level (as bench.base.discover_benchmarks)."""
    names = {
        t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)
    }
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    return "NAME" in names and "run" in functions


def _plugins() -> dict[str, ast.Module]:
    found = {}
    for path in sorted(BENCH.glob("*.py")):
        tree = _tree(path)
        if not path.name.startswith("_") and _is_plugin(tree):
            found[path.stem] = tree
    return found


def _library_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def imported_modules(tree: ast.Module) -> set[str]:
    """Every module ``tree`` imports, ``from a import b`` counted as both ``a`` and ``a.b``."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


def plugin_imports(tree: ast.Module, plugins: set[str]) -> set[str]:
    """The other bench plugins ``tree`` imports."""
    return {m.split(".")[2] for m in imported_modules(tree) if m.startswith("debiasrag.bench.")} & plugins


def run_problems(tree: ast.Module) -> list[str]:
    """What is wrong with the module's ``run``: no docstring, or 60 lines or more."""
    run = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run")
    problems = []
    if not ast.get_docstring(run):
        problems.append("run has no docstring")
    lines = (run.end_lineno or run.lineno) - run.lineno + 1
    if lines >= MAX_RUN_LINES:
        problems.append(f"run is {lines} lines (limit {MAX_RUN_LINES - 1})")
    return problems


def direct_seed_figures(tree: ast.Module) -> list[int]:
    """Lines that touch ``<result>.seed_figures`` instead of going through ``add_seed_figures``."""
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "seed_figures"]


def hand_built_tables(tree: ast.Module) -> list[int]:
    """Lines building a markdown table by hand: a ``|---`` rule or ``" | ".join``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.search(r"\|\s*:?-{3}", node.value):
            lines.append(node.lineno)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "join"
            and isinstance(node.func.value, ast.Constant)
            and node.func.value.value in (" | ", " |", "| ")
        ):
            lines.append(node.lineno)
    return lines


def _docstrings(tree: ast.Module) -> set[int]:
    """``id`` of every docstring node (module, class and function docstrings may name ``debiasrag/data``)."""
    owners = [tree] + [
        n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    return {
        id(owner.body[0].value)
        for owner in owners
        if owner.body and isinstance(owner.body[0], ast.Expr) and isinstance(owner.body[0].value, ast.Constant)
    }


def data_lookups(tree: ast.Module) -> list[int]:
    """Lines that locate package files themselves: ``importlib.resources``, ``pkgutil.get_data``, ``__file__``,
    a ``debiasrag/data/...`` path string (prose that names the folder is not a lookup)."""
    docstrings = _docstrings(tree)
    lines = [
        n.lineno
        for n in ast.walk(tree)
        if (isinstance(n, ast.Name) and n.id == "__file__")
        or (isinstance(n, ast.Attribute) and n.attr == "get_data")
        or (
            isinstance(n, ast.Constant)
            and isinstance(n.value, str)
            and re.fullmatch(r"[\w./-]*debiasrag/data\b[\w./-]*", n.value) is not None
            and id(n) not in docstrings
        )
    ]
    lines += [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        and any(
            m == "importlib.resources" or m.startswith("importlib_resources")
            for m in imported_modules(ast.Module([n], []))
        )
    ]
    return lines


def flags_in_errors(tree: ast.Module) -> list[str]:
    """String pieces of error constructors (``...Error(...)``, hints included) that name a CLI flag."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if not name.endswith("Error"):
            continue
        for part in ast.walk(node):
            if isinstance(part, ast.Constant) and isinstance(part.value, str) and FLAG.search(part.value):
                found.append(f"line {part.lineno}: {part.value.strip()!r}")
    return found


# -- the rules on the real tree ---------------------------------------------------------------------------------


def test_the_bench_plugins_are_found():
    assert {"weat", "wefe", "sts", "summeval", "name_bias", "retrieval"} <= set(_plugins())


@pytest.mark.parametrize("name", sorted(_plugins()))
def test_no_bench_plugin_imports_another(name):
    plugins = set(_plugins())
    assert plugin_imports(_plugins()[name], plugins - {name}) == set()


@pytest.mark.parametrize("name", sorted(_plugins()))
def test_every_plugin_run_is_documented_and_short(name):
    assert run_problems(_plugins()[name]) == []


@pytest.mark.parametrize("name", sorted(_plugins()))
def test_plugins_compare_through_the_shared_helper(name):
    assert direct_seed_figures(_plugins()[name]) == []


def test_markdown_tables_come_from_md_table_only():
    offenders = {
        str(p.relative_to(PACKAGE)): hand_built_tables(_tree(p)) for p in _library_modules() if p.name != "markdown.py"
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_only_resources_locates_packaged_data():
    offenders = {
        str(p.relative_to(PACKAGE)): data_lookups(_tree(p)) for p in _library_modules() if p.name != "resources.py"
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_library_errors_do_not_name_cli_flags():
    library = [p for p in _library_modules() if p.name != "cli.py" and p.relative_to(PACKAGE).parts[0] != "commands"]
    offenders = {str(p.relative_to(PACKAGE)): flags_in_errors(_tree(p)) for p in library}
    assert {k: v for k, v in offenders.items() if v} == {}


# -- each checker finds what it is for ----------------------------------------------------------------------------

BAD_PLUGIN = (
    """
from debiasrag.bench import sts
from debiasrag.bench.name_bias import shared_helper
NAME = "bad"

def run(ctx):
    result.seed_figures["x"] = 1.0
    table = "| a | b |\\n|---|---|"
    row = " | ".join(cells)
"""
    + "    pass\n" * MAX_RUN_LINES
)


def test_the_checkers_catch_violations():
    tree = ast.parse(BAD_PLUGIN)
    assert _is_plugin(tree)
    assert plugin_imports(tree, {"sts", "name_bias", "weat"}) == {"sts", "name_bias"}
    assert run_problems(tree) == ["run has no docstring", f"run is {MAX_RUN_LINES + 4} lines (limit 59)"]
    assert direct_seed_figures(tree) == [7]
    assert hand_built_tables(tree) == [8, 9]
    lookups = ast.parse(
        "from importlib import resources\nimport importlib.resources\nPath(__file__).parent / 'data'\n"
        "pkgutil.get_data('debiasrag', 'data/x.json')\nopen('debiasrag/data/x.json')\n"
    )
    assert sorted(data_lookups(lookups)) == [1, 2, 3, 4, 5]
    errors = ast.parse("raise InputError('bad k', hint='use --k 3')\nraise ValueError('k must be positive')\n")
    assert flags_in_errors(errors) == ["line 1: 'use --k 3'"]
