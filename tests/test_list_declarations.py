"""Every list route family is declared once (`kit.query.list_columns`), in its domain's `listing.py`: each name it
parses, as a sort key or a filter, has the expression its repository reads, so a column that parses but has no
SQL (a 500) cannot exist."""

from __future__ import annotations

import importlib
import pkgutil
from collections import defaultdict

import houndgraph
from houndgraph.kit.query import ListColumns


def _declarations() -> list[tuple[ListColumns, set[str]]]:
    """Each list declaration of the package, with the modules that hold it (where it is declared, and where it is
    imported)."""
    holders: dict[int, set[str]] = defaultdict(set)
    declared: dict[int, ListColumns] = {}
    for module_info in pkgutil.walk_packages(houndgraph.__path__, "houndgraph."):
        if ".grammar" in module_info.name or module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if isinstance(value, ListColumns):
                declared[id(value)] = value
                holders[id(value)].add(f"{module.__name__}.{name}")
    return [(declared[key], holders[key]) for key in declared]


def test_every_sort_key_and_filter_of_a_list_reads_a_declared_expression() -> None:
    declarations = _declarations()
    assert len(declarations) >= 25
    missing = {min(holders): sorted((set(columns.sortable) | set(columns.filters)) - set(columns.expressions))
               for columns, holders in declarations}
    assert {where: names for where, names in missing.items() if names} == {}


def test_each_list_is_declared_in_its_domains_listing_module() -> None:
    elsewhere = [sorted(holders) for _, holders in _declarations()
                 if not any(holder.rsplit(".", 1)[0].endswith(".listing") for holder in holders)]
    assert elsewhere == []
