"""Whether the graph changed since the last analysis: the generation counter of graph writes.

Every statement writing `node` or `edge` outside analysis draws a new value of the `graph_generation`
sequence (migration 0017). A run reads the generation under the graph writer's lock, so every write it
counts has committed and is visible to the run; it stores that generation with a fingerprint of what
decides the rules' result (the rules, the options, the version). A later run that finds both unchanged keeps
the derived edges as they are: the rules are deterministic functions of the graph, so deriving them again
would write the same edges. Writes made while a run holds `houndgraph.analysis` on (its own derived edges,
well-known nodes, zone tags) do not count: no rule reads what the run itself writes from an earlier run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime

import orjson
import psycopg

from houndgraph import __version__
from houndgraph.analysis.context import AnalysisOptions
from houndgraph.analysis.rule import Rule

_CURRENT = "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM graph_generation"
_STORED = "SELECT analysed_at FROM analysis_state WHERE id = 1 AND generation = %s AND fingerprint = %s"
_SAVE = """
INSERT INTO analysis_state (id, generation, fingerprint, analysed_at)
VALUES (1, %(generation)s, %(fingerprint)s, %(at)s)
ON CONFLICT (id) DO UPDATE
SET generation = EXCLUDED.generation, fingerprint = EXCLUDED.fingerprint, analysed_at = EXCLUDED.analysed_at
"""
_MARK = "SELECT set_config('houndgraph.analysis', %s, true)"


def fingerprint(rules: Sequence[Rule], options: AnalysisOptions, finish: str | None) -> str:
    described = {"version": __version__, "rules": [rule.name for rule in rules], "options": asdict(options),
                 "finish": finish}
    return hashlib.sha256(orjson.dumps(described, option=orjson.OPT_SORT_KEYS)).hexdigest()


def current(conn: psycopg.Connection) -> int:
    row = conn.execute(_CURRENT).fetchone()
    assert row is not None
    return int(row[0])


def unchanged_since(conn: psycopg.Connection, generation: int, key: str) -> datetime | None:
    """The time of the last run when it derived its edges at this generation with the same rules and options."""
    row = conn.execute(_STORED, (generation, key)).fetchone()
    return row[0] if row is not None else None


def save(conn: psycopg.Connection, generation: int, key: str, at: datetime) -> None:
    conn.execute(_SAVE, {"generation": generation, "fingerprint": key, "at": at})


def mark_own_writes(conn: psycopg.Connection, on: bool) -> None:
    """Writes of this transaction from now on are analysis's own (on) or count as graph changes (off)."""
    conn.execute(_MARK, ("on" if on else "off",))
