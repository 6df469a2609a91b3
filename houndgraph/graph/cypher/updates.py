"""Queries with updating clauses (CREATE, MERGE, SET, REMOVE, DELETE), run step by step.

Cypher reads and writes in clause order: a clause sees what the clauses before it wrote. So the
query is cut at its updating clauses. The reading clauses between two cuts are one translated
SELECT that returns every variable in scope (a table of rows); each updating clause is one or a few
set-based statements over that table (writes.py); the table, with the variables the clause bound,
feeds the next step as the `Inputs` of its statement. Everything runs in the caller's transaction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import psycopg

from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.cypher import after_deletes, validate, writes
from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherError, CypherSemanticError
from houndgraph.graph.cypher.statement import Result, graph_ids, run_statement
from houndgraph.graph.cypher.step_table import Table
from houndgraph.graph.cypher.translate import translator
from houndgraph.graph.cypher.translate.values import T
from houndgraph.graph.cypher.update_values import properties_map, property_value

# The extra column a reading step returns so that it has one even with no variable in scope.
ROW = " row"
# Names given to MERGE's anonymous pattern elements so that the match says whether it found them.
MERGE_PREFIX = "__hg_merge_"
# A step's statement has a column per variable: PostgreSQL takes at most 1,664.
MAX_JOINED_CREATE_PATTERNS = 100


async def run_updating_query(conn: psycopg.AsyncConnection, query: a.Query, kinds: dict[str, int],
                             budget: WorkBudget | None = None) -> Result:
    """Runs the query (checked by validate()); `kinds` gains the kinds it creates."""
    clauses = _joined_creates(query.parts[0].clauses)
    budget = budget or WorkBudget()
    runner = _Runner(conn, kinds, budget)
    table = Table([], [()])
    reading: list[a.Clause] = []
    deleted: set[str] = set()
    for index, clause in enumerate(clauses):
        deleted = after_deletes.check(clause, deleted)
        if isinstance(clause, a.UPDATING_CLAUSES):
            if reading:
                table = await runner.read(table, reading)
                reading = []
            if isinstance(clause, a.Delete):
                # What the rest of the query may still read of what this clause deletes, read before it does.
                kept, clauses[index + 1:] = after_deletes.keep_types(clause, clauses[index + 1:])
                if kept:
                    values, types = await runner.evaluate(table, [after_deletes.type_of(name) for name in kept])
                    columns = [(after_deletes.kept_type(name), kind) for name, kind in zip(kept, types, strict=True)]
                    table = table.with_columns(columns, values)
            table = await runner.update(table, clause)
            if isinstance(clause, a.Delete):
                deleted |= after_deletes.deleted_variables(clause, table)
        else:
            reading.append(clause)
    if reading:
        return await run_statement(conn, a.Query((a.SingleQuery(tuple(reading)),)), kinds, table.inputs(),
                                   budget)
    return Result([], [], [])


def _joined_creates(clauses: Sequence[a.Clause]) -> list[a.Clause]:
    """Consecutive CREATE clauses as one: `CREATE (a) CREATE (a)-[:R]->(b)` creates what `CREATE (a),
    (a)-[:R]->(b)` does, in one step instead of one per clause (a script of a thousand CREATEs takes a few
    steps, not a thousand, each carrying every variable bound so far)."""
    joined: list[a.Clause] = []
    for clause in clauses:
        if (isinstance(clause, a.Create) and joined and isinstance(joined[-1], a.Create)
                and len(joined[-1].patterns) + len(clause.patterns) <= MAX_JOINED_CREATE_PATTERNS):
            joined[-1] = a.Create((*joined[-1].patterns, *clause.patterns))
        else:
            joined.append(clause)
    return joined


def _reads_created(patterns: Sequence[a.PatternPart], known: set[str]) -> int:
    """The index of the first pattern whose property maps read a variable an earlier pattern of the same CREATE
    creates; 0 when none does."""
    created: set[str] = set()
    for index, part in enumerate(patterns):
        elements: list[a.NodePattern | a.RelPattern] = [*part.nodes, *part.rels]
        maps = tuple(element.properties for element in elements if element.properties is not None)
        if index and any(isinstance(e, a.Variable) and e.name in created for e in validate.walk(maps)):
            return index
        created |= {element.variable for element in elements
                    if element.variable is not None and element.variable not in known}
    return 0


class _Runner:
    def __init__(self, conn: psycopg.AsyncConnection, kinds: dict[str, int], budget: WorkBudget) -> None:
        self.conn = conn
        self.kinds = kinds
        self.budget = budget

    async def read(self, table: Table, clauses: Sequence[a.Clause]) -> Table:
        everything = a.Return(a.Projection((a.ProjectionItem(a.Literal(True), ROW),), star=True))
        result = await run_statement(self.conn, a.Query((a.SingleQuery((*clauses, everything)),)), self.kinds,
                                     table.inputs(), self.budget, row_cap=False)
        keep = [i for i, name in enumerate(result.columns) if name != ROW]
        return Table([(result.columns[i], result.types[i]) for i in keep],
                     [tuple(row[i] for i in keep) for row in result.rows])

    async def evaluate(self, table: Table, expressions: Sequence[a.Expr]) -> tuple[list[tuple[Any, ...]], list[T]]:
        """Each expression's value on each row, in row order."""
        statement, types = translator.evaluate(expressions, self.kinds, table.inputs())
        if not table.rows:
            return [], types
        cursor = await self.conn.execute(statement.sql, statement.params)
        return [tuple(row) for row in await cursor.fetchall()], types

    async def update(self, table: Table, clause: a.Clause) -> Table:
        if isinstance(clause, a.Create):
            return await self.create(table, clause.patterns)
        if isinstance(clause, a.Merge):
            return await self.merge(table, clause)
        if isinstance(clause, a.SetClause):
            await self.set_items(table, clause.items)
        elif isinstance(clause, a.Remove):
            await self.remove(table, clause.items)
        elif isinstance(clause, a.Delete):
            await self.delete(table, clause)
        return table

    # -- CREATE ---------------------------------------------------------------------------------

    async def create(self, table: Table, patterns: Sequence[a.PatternPart]) -> Table:
        known = set(table.names())
        validate.check_create(patterns, known)
        if split := _reads_created(patterns, known):
            # `CREATE (a {id: 0}), (:B {num: a.id})`: a property read from an element created earlier in the
            # clause needs it created first.
            return await self.create(await self.create(table, patterns[:split]), patterns[split:])
        nodes: list[tuple[str, a.NodePattern]] = []
        rels: list[tuple[str, a.RelPattern, str, str]] = []
        paths: list[tuple[str, list[str]]] = []
        for part in patterns:
            names = []
            for node in part.nodes:
                if node.variable is not None and node.variable in known:
                    names.append(node.variable)
                    continue
                name = node.variable or f" node{len(nodes)}"
                nodes.append((name, node))
                known.add(name)
                names.append(name)
            for index, rel in enumerate(part.rels):
                name = rel.variable or f" rel{len(rels)}"
                left, right = names[index], names[index + 1]
                start, end = (left, right) if rel.direction is a.Direction.OUT else (right, left)
                rels.append((name, rel, start, end))
                known.add(name)
            if part.variable is not None:
                element_names = [names[0]]
                for (rel_name, *_), node_name in zip(rels[-len(part.rels):] if part.rels else [], names[1:],
                                                     strict=True):
                    element_names += [rel_name, node_name]
                paths.append((part.variable, element_names))
        maps = [n.properties or a.MapLiteral(()) for _, n in nodes] + [r.properties or a.MapLiteral(())
                                                                        for _, r, _, _ in rels]
        values, types = await self.evaluate(table, maps)
        await writes.ensure_kinds(self.conn, self.kinds, [label for _, n in nodes for group in n.labels
                                                          for label in group] + [r.types[0] for _, r, _, _ in rels])
        ids = iter(await writes.new_node_ids(self.conn, len(table.rows) * len(nodes)))
        created: list[dict[str, Any]] = []
        node_records = []
        for row, props in zip(table.rows, values, strict=True):
            bound = dict(zip(table.names(), row, strict=True))
            for index, (name, node) in enumerate(nodes):
                node_id = next(ids)
                bound[name] = node_id
                kind_ids = [self.kinds[label] for group in node.labels for label in group]
                node_records.append((node_id, kind_ids, properties_map(props[index], types[index])))
            created.append(bound)
        await writes.insert_nodes(self.conn, node_records)
        edge_records = []
        for bound, props in zip(created, values, strict=True):
            for index, (name, rel, start, end) in enumerate(rels):
                for end_name in (start, end):
                    if bound[end_name] is None:
                        raise CypherError(f"Failed to create relationship `{name.strip()}`: node `{end_name.strip()}` "
                                          "is null")
                position = len(nodes) + index
                edge_records.append((bound[start], self.kinds[rel.types[0]], bound[end],
                                     properties_map(props[position], types[position])))
        edge_ids = await writes.upsert_edges(self.conn, edge_records)
        for bound in created:
            for name, rel, start, end in rels:
                bound[name] = edge_ids[(bound[start], self.kinds[rel.types[0]], bound[end])]
            for path_name, element_names in paths:
                bound[path_name] = [bound[n] for n in element_names]
        new_columns = ([(name, T.NODE) for name, _ in nodes] + [(name, T.REL) for name, *_ in rels]
                       + [(name, T.PATH) for name, _ in paths])
        new_columns = [(name, kind) for name, kind in new_columns if not name.startswith(" ")]
        columns = table.columns + new_columns
        return Table(columns, [tuple(bound[name] for name, _ in columns) for bound in created])

    # -- MERGE ----------------------------------------------------------------------------------

    async def merge(self, table: Table, clause: a.Merge) -> Table:
        part = self.named_merge_pattern(clause.pattern, set(table.names()))
        matched_or_not = await self.read(table, [a.Match((part,), None, optional=True)])
        new_names = [n for n in [*(x.variable for x in part.nodes), *(r.variable for r in part.rels)]
                     if n is not None and n not in table.names()]
        matched_rows: list[tuple[Any, ...]] = []
        missing_rows: list[tuple[Any, ...]] = []
        for row in matched_or_not.rows:
            found = all(matched_or_not.value(row, n) is not None for n in new_names)
            (matched_rows if found else missing_rows).append(row)
        matched = matched_or_not.subset(matched_rows)
        await self.set_items(matched, clause.on_match)
        if missing_rows:
            missing = matched_or_not.subset(missing_rows).project(table.names())
            created, repeated = await self.create_once(missing, part)
            await self.set_items(created.subset([r for r, again in zip(created.rows, repeated, strict=True)
                                                 if not again]), clause.on_create)
            # A later row that would create the same thing matches what the first one created, as it would when
            # Neo4j runs them one by one: its ON MATCH applies.
            await self.set_items(created.subset([r for r, again in zip(created.rows, repeated, strict=True)
                                                 if again]), clause.on_match)
            rows = matched.rows + created.project(matched.names()).rows
        else:
            rows = matched.rows
        merged = matched.subset(rows)
        visible = [n for n in merged.names() if not n.startswith(MERGE_PREFIX)]
        return merged.project(visible)

    @staticmethod
    def named_merge_pattern(part: a.PatternPart, known: set[str]) -> a.PatternPart:
        """The pattern with every element named and object ids upper-cased as they are stored."""
        validate.check_merge(part, known)
        counter = iter(range(1_000_000))

        def upper_objectid(props: a.MapLiteral | None) -> a.MapLiteral | None:
            if props is None:
                return None
            return a.MapLiteral(tuple((key, a.FunctionCall("toupper", (value,)) if key == writes.OBJECT_ID else value)
                                      for key, value in props.items))

        nodes = []
        for node in part.nodes:
            nodes.append(a.NodePattern(node.variable or f"{MERGE_PREFIX}{next(counter)}", node.labels,
                                       upper_objectid(node.properties)))
        rels = []
        for rel in part.rels:
            rels.append(a.RelPattern(rel.variable or f"{MERGE_PREFIX}{next(counter)}", rel.types, rel.direction,
                                     None, rel.properties))
        return a.PatternPart(part.variable, tuple(nodes), tuple(rels))

    async def create_once(self, missing: Table, part: a.PatternPart) -> tuple[Table, list[bool]]:
        """Creates the pattern for rows that did not match it; rows that would create the same thing (same
        bound ends, same properties) share one creation, as they would when Neo4j runs them one by one. Says,
        per row, whether an earlier row created its elements."""
        maps = [n.properties or a.MapLiteral(()) for n in part.nodes] + [r.properties or a.MapLiteral(())
                                                                         for r in part.rels]
        values, _ = await self.evaluate(missing, maps)
        for props in values:
            for element, mapping in zip((*part.nodes, *part.rels), props, strict=True):
                if isinstance(mapping, dict) and (key := next((k for k, v in mapping.items() if v is None), None)):
                    what = "node" if isinstance(element, a.NodePattern) else "relationship"
                    raise CypherSemanticError(f"Cannot merge the following {what} because of null property value "
                                              f"for '{key}' (MergeReadOwnWrites)")
        bound = [n for n in missing.names() if n in {x.variable for x in part.nodes}]
        keys = [json.dumps([[missing.value(row, n) for n in bound], list(props)], sort_keys=True, default=str)
                for row, props in zip(missing.rows, values, strict=True)]
        first: dict[str, tuple[Any, ...]] = {}
        for key, row in zip(keys, missing.rows, strict=True):
            first.setdefault(key, row)
        unique = list(first)
        # An undirected relationship is created from the left node to the right one, as Neo4j creates it.
        directed = a.PatternPart(part.variable, part.nodes, tuple(
            replace(rel, direction=a.Direction.OUT) if rel.direction is a.Direction.BOTH else rel for rel in part.rels))
        created = await self.create(missing.subset([first[k] for k in unique]), [directed])
        by_key = dict(zip(unique, created.rows, strict=True))
        extra = len(missing.columns)
        rows = [row + by_key[key][extra:] for key, row in zip(keys, missing.rows, strict=True)]
        seen: set[str] = set()
        repeated = []
        for key in keys:
            repeated.append(key in seen)
            seen.add(key)
        return Table(created.columns, rows), repeated

    # -- SET and REMOVE -------------------------------------------------------------------------

    async def set_items(self, table: Table, items: Sequence[a.SetItem]) -> None:
        # Item by item: a later item sees what an earlier one wrote (`SET n.a = 1, n.b = n.a`).
        for item in items:
            if item.kind == "labels":
                await self.labels(table, item, add=True)
                continue
            if item.kind == "property":
                assert isinstance(item.target, a.Property) and item.value is not None
                subject, value = item.target.subject, item.value
            else:
                assert item.value is not None
                subject, value = item.target, item.value
            values, types = await self.evaluate(table, [subject, value])
            changes: dict[str, dict[int, writes.PropertyChange]] = {"node": {}, "edge": {}}
            sources = await self.entity_properties(values, types[1]) if types[1] in (T.NODE, T.REL) else {}
            for entity, new in values:
                if entity is None:
                    continue  # SET on null does nothing, as in Neo4j
                if types[0] not in (T.NODE, T.REL):
                    raise CypherError("SET needs a node or a relationship")
                change = changes["node" if types[0] is T.NODE else "edge"].setdefault(int(entity),
                                                                                     writes.PropertyChange())
                if item.kind == "property":
                    assert isinstance(item.target, a.Property)
                    stored = property_value(new, types[1])
                    if stored is None:
                        change.then(remove=[item.target.key])
                    else:
                        change.then(merge={item.target.key: stored})
                    continue
                mapping = sources.get(new, {}) if types[1] in (T.NODE, T.REL) else new
                if mapping is not None and not isinstance(mapping, dict):
                    raise CypherError("SET n = / SET n += needs a map, a node or a relationship")
                mapping = mapping or {}
                stored_map = {k: property_value(v, T.JSON) for k, v in mapping.items()}
                change.then(replace=item.kind == "replace",
                            merge={k: v for k, v in stored_map.items() if v is not None},
                            remove=[k for k, v in stored_map.items() if v is None])
            for table_name, per_entity in changes.items():
                await writes.write_properties(self.conn, table_name, per_entity)

    async def entity_properties(self, values: list[tuple[Any, ...]], kind: T) -> dict[int, dict[str, Any]]:
        ids = sorted({int(v[1]) for v in values if v[1] is not None})
        cursor = await self.conn.execute(
            f"SELECT id, properties FROM {'node' if kind is T.NODE else 'edge'} WHERE id = ANY(%s::bigint[])", (ids,))
        return {int(entity_id): props for entity_id, props in await cursor.fetchall()}

    async def labels(self, table: Table, item: a.SetItem, *, add: bool) -> None:
        values, types = await self.evaluate(table, [item.target])
        if types[0] is not T.NODE:
            raise CypherError("labels belong to nodes")
        ids = [int(v[0]) for v in values if v[0] is not None]
        if add:
            await writes.ensure_kinds(self.conn, self.kinds, item.labels)
            await writes.add_labels(self.conn, ids, [self.kinds[label] for label in item.labels])
        else:
            known = [self.kinds[label] for label in item.labels if label in self.kinds]
            await writes.remove_labels(self.conn, ids, known)

    async def remove(self, table: Table, items: Sequence[a.SetItem]) -> None:
        for item in items:
            if item.kind == "labels":
                await self.labels(table, item, add=False)
                continue
            assert isinstance(item.target, a.Property)
            values, types = await self.evaluate(table, [item.target.subject])
            if types[0] not in (T.NODE, T.REL):
                raise CypherError("REMOVE of a property needs a node or a relationship")
            changes: dict[int, writes.PropertyChange] = {}
            for (entity,) in values:
                if entity is not None:
                    changes.setdefault(int(entity), writes.PropertyChange()).then(remove=[item.target.key])
            await writes.write_properties(self.conn, "node" if types[0] is T.NODE else "edge", changes)

    # -- DELETE ---------------------------------------------------------------------------------

    async def delete(self, table: Table, clause: a.Delete) -> None:
        for expression in clause.expressions:
            if isinstance(expression, a.HasLabels):
                raise CypherSemanticError("DELETE takes nodes, relationships or paths: use REMOVE to remove a "
                                          "label (InvalidDelete)")
            if isinstance(expression, a.Binary | a.Unary | a.ListLiteral | a.MapLiteral) or (
                    isinstance(expression, a.Literal) and expression.value is not None):
                raise CypherSemanticError("DELETE takes nodes, relationships or paths (InvalidArgumentType)")
        values, types = await self.evaluate(table, clause.expressions)
        node_ids, edge_ids = graph_ids(values, types,
                                       refuse_others="DELETE takes nodes, relationships or paths")
        await writes.delete(self.conn, node_ids, edge_ids, detach=clause.detach)

