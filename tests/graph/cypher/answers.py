"""Running Cypher straight through the translator, and comparing answers with an evaluator's, for the
randomized tests."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg

from houndgraph.db import Database
from houndgraph.graph.cypher.execute import run_query

Question = tuple[str, list[tuple[Any, ...]]]  # (query, the rows the evaluator expects)


def rows(database: Database, queries: list[str]) -> list[list[tuple[Any, ...]]]:
    async def go() -> list[list[tuple[Any, ...]]]:
        async with await psycopg.AsyncConnection.connect(database.conninfo) as conn:
            return [[tuple(row) for row in (await run_query(conn, q, load_entities=False)).rows] for q in queries]

    return asyncio.run(go())


def assert_answers(database: Database, questions: list[Question], context: str) -> None:
    """Each query's rows, in any order, are the evaluator's."""
    answers = rows(database, [query for query, _ in questions])
    for (query, expected), got in zip(questions, answers, strict=True):
        assert sorted(map(repr, got)) == sorted(map(repr, expected)), f"{context}: {query}"
