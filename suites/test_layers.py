"""The packages form layers and data flows through them once (docs/design.md, "Layers").

Every import of the project's own modules is parsed -- at module level and inside function
bodies alike -- and checked: a module may import from its own package or from a lower layer,
never from a higher one or a sibling of the same rank, and never another module's private
(``_underscore``) names.  Zero exceptions: a violation is fixed by moving code, not listed here.
Nor may modules import each other in a circle, across packages or inside one (an import under
``if TYPE_CHECKING:`` is not made at run time and does not count).
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

#: The order, bottom first. Packages of one rank stand beside each other and import none of the others.
LAYERS = (
    ("oracle",),                      # types, IR, MLIR text, numerics, the evaluator, the op records
    ("generators", "judge", "adapters"),
    ("reports",),                     # results model, reproducers, HTML/JUnit
    ("conformance",),                 # campaigns, corpora, certification, the CLI
)
RANK = {package: rank for rank, packages in enumerate(LAYERS) for package in packages}

#: Modules only their own package may import.  The deviation tables and their conditions are
#: the judge's: it puts the entry that explains a failure on its Verdict, and every caller above
#: reads it there (``verdict.deviation``, ``case.deviation``) instead of matching the tables again.
PACKAGE_ONLY = ("judge.known_deviations", "judge.deviation_conditions", "judge.conditions")


def _package_only(target: str, name: str | None) -> str | None:
    """The package-only module an import reaches (``from judge import known_deviations`` too), if any."""
    for imported in (target, f"{target}.{name}" if name else target):
        for module in PACKAGE_ONLY:
            if imported == module or imported.startswith(module + "."):
                return module
    return None


def _modules(root):
    for package in RANK:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), path


def _is_type_checking(node) -> bool:
    """``if TYPE_CHECKING:`` / ``if typing.TYPE_CHECKING:``: imports for annotations only."""
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
            or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _nodes(tree, *, run_time_only: bool):
    """Every node of the tree; without the bodies of ``if TYPE_CHECKING:`` when run_time_only."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        children = list(ast.iter_child_nodes(node))
        if run_time_only and _is_type_checking(node):
            children = [c for c in children if c is node.test or c in node.orelse]
        stack.extend(reversed(children))


def _imports(module: str, path: pathlib.Path, *, run_time_only: bool = False):
    """(line, imported module, imported name or None) for every import in the file."""
    is_package = path.name == "__init__.py"
    for node in _nodes(ast.parse(path.read_text(), filename=str(path)), run_time_only=run_time_only):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = module.split(".")
                base = base[:len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                yield node.lineno, target, alias.name


def _private_attributes(path: pathlib.Path):
    """(line, module alias, name) for ``alias._name`` where ``alias`` is an imported project module."""
    tree = ast.parse(path.read_text(), filename=str(path))
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update((a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] in RANK)
        elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] in RANK):
            aliases.update(a.asname or a.name for a in node.names)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            yield node.lineno, node.value.id, node.attr


def _violations(root=ROOT):
    found = []
    for module, path in _modules(root):
        package = module.split(".")[0]
        for line, target, name in _imports(module, path):
            top = target.split(".")[0]
            where = f"{path.relative_to(root)}:{line}: {module} imports {target}" + (f".{name}" if name else "")
            if top in RANK and top != package and RANK[top] >= RANK[package]:
                found.append(f"{where} (layer {RANK[package]} -> {RANK[top]})")
            if top in RANK and name and name.startswith("_") and not name.startswith("__") and target != module:
                found.append(f"{where} (a private name of another module)")
            inside = _package_only(target, name)
            if inside and package != inside.split(".")[0]:
                found.append(f"{where} ({inside} is {inside.split('.')[0]}'s own)")
        for line, alias, name in _private_attributes(path):
            found.append(f"{path.relative_to(root)}:{line}: {module} uses {alias}.{name} (a private name of another module)")
    return found


def _import_graph(root=ROOT) -> dict[str, dict[str, str]]:
    """module -> {module it imports at run time: where ("path:line")}, the project's modules only.
    ``from package import name`` is an import of package.name when that is a module."""
    paths = dict(_modules(root))
    graph = {}
    for module, path in paths.items():
        edges = graph[module] = {}
        for line, target, name in _imports(module, path, run_time_only=True):
            imported = f"{target}.{name}" if name and f"{target}.{name}" in paths else target
            if imported in paths and imported != module:
                edges.setdefault(imported, f"{path.relative_to(root)}:{line}")
    return graph


def _cycles(graph: dict[str, dict]) -> list[list[str]]:
    """One cycle (its modules in import order) for every group of modules that import each
    other (a strongly connected component of more than one module, Tarjan's algorithm)."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]  # iterative DFS: no recursion limit
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(group)
    return [_cycle_through(graph, group) for group in groups]


def _cycle_through(graph, group: set[str]) -> list[str]:
    """A shortest cycle from the group's first module back to it, inside the group (BFS)."""
    first = min(group)
    came_from = {first: None}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node]):
                if nxt == first:
                    path = [node]
                    while came_from[path[-1]] is not None:
                        path.append(came_from[path[-1]])
                    return path[::-1]
                if nxt in group and nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle through {first}")  # a strongly connected group always has one


def _cycle_report(graph, cycle: list[str]) -> str:
    steps = zip(cycle, cycle[1:] + cycle[:1])
    return " -> ".join(cycle + cycle[:1]) + "\n" + "\n".join(f"    {graph[a][b]}: {a} imports {b}" for a, b in steps)


def test_every_import_follows_the_layers():
    violations = _violations()
    assert not violations, f"{len(violations)} imports break the layers:\n" + "\n".join(violations)


@pytest.mark.parametrize("source, expected", [
    ("from conformance.run import check_case\n", "layer 0 -> 3"),
    ("def f():\n    from reports.results import write_results\n", "layer 0 -> 2"),
    ("from oracle.ops.structural import _ints\n", "private name"),
    ("from oracle.ops import structural\nx = structural._ints\n", "structural._ints"),
])
def test_the_check_can_fail(tmp_path, source, expected):
    """A planted upward or private import inside oracle/ is reported."""
    (tmp_path / "oracle").mkdir()
    (tmp_path / "oracle" / "planted.py").write_text(source)
    assert [v for v in _violations(tmp_path) if expected in v]


@pytest.mark.parametrize("source", [
    "from judge.known_deviations import KNOWN_DEVIATIONS\n",
    "from judge import known_deviations\n",
    "def f():\n    import judge.deviation_conditions\n",
])
def test_only_the_judge_reads_the_deviation_tables(tmp_path, source):
    """A report that matches the deviation tables itself is reported; the judge's own import is not."""
    for package in ("reports", "judge"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "planted.py").write_text(source)
    found = [v for v in _violations(tmp_path) if "is judge's own" in v]
    assert len(found) == 1 and found[0].startswith("reports")


def test_no_modules_import_each_other_in_a_circle():
    graph = _import_graph()
    cycles = _cycles(graph)
    assert not cycles, (f"{len(cycles)} groups of modules import each other (give each group one direction):\n"
                        + "\n".join(_cycle_report(graph, c) for c in cycles))


def test_the_cycle_finder_finds_every_circle_and_only_those():
    """Hand-drawn graphs: a 3-cycle with a tail, a 2-cycle, a self-import, a diamond (no cycle)."""
    graph = {"a": {"b": ""}, "b": {"c": ""}, "c": {"a": "", "d": ""}, "d": {}, "t": {"a": ""},
             "x": {"y": ""}, "y": {"x": ""}, "s": {"s": ""},
             "p": {"q": "", "r": ""}, "q": {"z": ""}, "r": {"z": ""}, "z": {}}
    assert sorted(_cycles(graph)) == [["a", "b", "c"], ["x", "y"]]
    assert _cycles({"p": {"q": ""}, "q": {}}) == []


def test_a_planted_circle_is_reported(tmp_path):
    """A function-level import closes the circle; an import under TYPE_CHECKING does not."""
    (tmp_path / "oracle").mkdir()
    (tmp_path / "oracle" / "masks.py").write_text("def mask():\n    from .ops import linalg\n")
    (tmp_path / "oracle" / "ops").mkdir()
    (tmp_path / "oracle" / "ops" / "__init__.py").write_text("")
    (tmp_path / "oracle" / "ops" / "linalg.py").write_text("from ..masks import mask\n")
    (tmp_path / "oracle" / "hints.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .ops.uses_hints import f\n")
    (tmp_path / "oracle" / "ops" / "uses_hints.py").write_text("from .. import hints\n")
    graph = _import_graph(tmp_path)
    assert _cycles(graph) == [["oracle.masks", "oracle.ops.linalg"]]
    assert _cycle_report(graph, _cycles(graph)[0]) == (
        "oracle.masks -> oracle.ops.linalg -> oracle.masks\n"
        "    oracle/masks.py:2: oracle.masks imports oracle.ops.linalg\n"
        "    oracle/ops/linalg.py:1: oracle.ops.linalg imports oracle.masks")


#: What the oracle never imports: it evaluates and states spec facts, and drawing lives in generators/.
ORACLE_NEVER_IMPORTS = ("hypothesis", "generators")


def _oracle_drawing_imports(root=ROOT) -> list[str]:
    found = []
    for module, path in _modules(root):
        if module.split(".")[0] != "oracle":
            continue
        for line, target, name in _imports(module, path):
            if target.split(".")[0] in ORACLE_NEVER_IMPORTS:
                found.append(f"{path.relative_to(root)}:{line}: {module} imports {target}")
    return found


def test_the_oracle_does_not_draw():
    found = _oracle_drawing_imports()
    assert not found, "the oracle imports drawing code (it belongs in generators/):\n" + "\n".join(found)


@pytest.mark.parametrize("source", ["from hypothesis import strategies as st\n",
                                    "def f():\n    from generators.tensors import tensors\n"])
def test_the_drawing_check_can_fail(tmp_path, source):
    (tmp_path / "oracle").mkdir()
    (tmp_path / "oracle" / "planted.py").write_text(source)
    assert any("planted" in line for line in _oracle_drawing_imports(tmp_path))
