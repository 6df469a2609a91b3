"""The package's one layer list (pyproject.toml's layers contract): every package in a layer, no import cycle.

`lint-imports` checks that each import goes down the list; these tests check what it does not: that a module
added to the package is placed in a layer, and that packages in the same layer (the domains, which may call
each other's services) never import each other in a circle.
"""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "houndgraph"

# The cycles the package has today (none): an import that closes a cycle between packages fails, and one that
# must stay for a while is named here, so that it leaves the list, and cannot come back, once it is gone.
KNOWN_CYCLE_IMPORTS: frozenset[tuple[str, str]] = frozenset()


def _layers() -> list[list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    assert len(contracts) == 1, "one layer list"
    assert contracts[0]["containers"] == ["houndgraph"] and contracts[0]["exhaustive"] is True
    return [re.split(r"\s*[|:]\s*", layer.strip()) for layer in contracts[0]["layers"]]


def _top_level_modules() -> set[str]:
    return {path.stem for path in PACKAGE.iterdir()
            if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").is_file()}


def _package_imports() -> dict[str, set[str]]:
    """Which top-level package or module of houndgraph imports which (directly, by any of its modules)."""
    graph = grimp.build_graph("houndgraph")
    imports: dict[str, set[str]] = defaultdict(set)
    for module in graph.modules:
        if module == "houndgraph":
            continue
        importer = module.split(".")[1]
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.startswith("houndgraph.") and imported.split(".")[1] != importer:
                imports[importer].add(imported.split(".")[1])
    return imports


def _cycle(imports: dict[str, set[str]]) -> list[str] | None:
    """One import cycle between packages, as the packages along it, or None."""
    state: dict[str, int] = {}  # 1: on the current walk, 2: done
    walk: list[str] = []

    def visit(package: str) -> list[str] | None:
        state[package] = 1
        walk.append(package)
        for imported in sorted(imports.get(package, ())):
            if state.get(imported) == 1:
                return walk[walk.index(imported):] + [imported]
            if imported not in state and (found := visit(imported)):
                return found
        walk.pop()
        state[package] = 2
        return None

    for package in sorted(imports):
        if package not in state and (found := visit(package)):
            return found
    return None


def test_every_module_of_the_package_is_in_exactly_one_layer() -> None:
    placed = [name for layer in _layers() for name in layer]
    assert sorted(placed) == sorted(set(placed)), "a module named in two layers"
    assert set(placed) == _top_level_modules()


def test_no_import_cycle_between_packages_but_the_known_ones() -> None:
    imports = _package_imports()
    present = {(importer, imported) for importer, imported in KNOWN_CYCLE_IMPORTS if imported in imports[importer]}
    # A known cycle that is gone leaves the list, so that it cannot come back unnoticed.
    assert present == KNOWN_CYCLE_IMPORTS
    for importer, imported in KNOWN_CYCLE_IMPORTS:
        imports[importer].discard(imported)
    assert _cycle(imports) is None


def test_nothing_but_the_composition_root_and_the_cli_imports_the_worker() -> None:
    assert {importer for importer, imported in _package_imports().items() if "worker" in imported} == {"app", "cli"}


def test_a_cycle_is_found_when_there_is_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "d": {"a", "c"}}) is None


def test_the_auth_kernel_imports_no_domain() -> None:
    domains = next(layer for layer in _layers() if "user" in layer)
    assert "auth" not in domains
    assert not _package_imports()["auth"] & set(domains)


def test_a_domain_s_routes_are_imported_only_by_the_route_table() -> None:
    # What two domains' routes share (list parameters, dependencies) lives beside them, never in the other's
    # endpoints module: a domain's endpoints import no other domain's endpoints, and only `api` gathers them.
    graph = grimp.build_graph("houndgraph")
    wrong = {(importer, endpoints) for endpoints in graph.modules if endpoints.endswith(".endpoints")
             for importer in graph.find_modules_that_directly_import(endpoints)
             if importer != "houndgraph.api" and importer.split(".")[1] != endpoints.split(".")[1]}
    assert wrong == set()
