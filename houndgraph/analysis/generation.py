"""Whether the graph changed since the last analysis: the generation counter of graph writes.

Every statement writing `node` or `edge` outside analysis draws a new value of the `graph_generation`
sequence (migration 0019). A run reads the generation under the graph writer's lock, so every write it counts
has committed and is visible to the run, and stores it with a fingerprint of what else decides the rules'
result: the rules, the options and the code of this package. A later run finding both unchanged keeps the
derived edges as they stand: the rules are deterministic functions of the collected graph, so deriving them
again would write the same edges. Writes a run makes with `houndgraph.analysis` on (derived edges, well-known
nodes, zone tags) do not count: they are themselves a function of the graph the run read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime
from functools import cache
from pathlib import Path

import orjson
import psycopg

from houndgraph.analysis.context import AnalysisOptions
from houndgraph.analysis.rule import Rule

_CURRENT = "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM graph_generation"
# Another transaction holding graph writes it has not committed (a writer outside the graph writer's lock, such
# as a property set through the API): its generation may be counted already while its rows are not visible yet.
_WRITES_IN_FLIGHT = """
SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'relation' AND mode = 'RowExclusiveLock' AND granted
               AND relation IN ('node'::regclass, 'edge'::regclass) AND pid <> pg_backend_pid())
"""
_STORED = "SELECT analysed_at FROM analysis_state WHERE id = 1 AND generation = %s AND fingerprint = %s"
_SAVE = """
INSERT INTO analysis_state (id, generation, fingerprint, analysed_at, findings_inputs, findings_found_at)
VALUES (1, %(generation)s, %(fingerprint)s, %(at)s, %(findings)s, %(found_at)s)
ON CONFLICT (id) DO UPDATE
SET generation = EXCLUDED.generation, fingerprint = EXCLUDED.fingerprint, analysed_at = EXCLUDED.analysed_at,
    findings_inputs = EXCLUDED.findings_inputs,
    findings_found_at = coalesce(EXCLUDED.findings_found_at, analysis_state.findings_found_at)
"""
_MARK = "SELECT set_config('houndgraph.analysis', %s, true)"


@cache
def _code() -> str:
    """A digest of the analysis code: an upgrade that changes a rule derives everything again."""
    digest = hashlib.sha256()
    package = Path(__file__).parent
    for source in sorted(package.rglob("*.py")):
        digest.update(str(source.relative_to(package)).encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def fingerprint(rules: Sequence[Rule], options: AnalysisOptions, finish: str | None) -> str:
    described = {"code": _code(), "rules": [rule.name for rule in rules], "options": asdict(options),
                 "finish": finish}
    return hashlib.sha256(orjson.dumps(described, option=orjson.OPT_SORT_KEYS)).hexdigest()


def current(conn: psycopg.Connection) -> int | None:
    """The graph's generation; None while another transaction has uncommitted graph writes, when no run can
    know whether it read them (it derives everything, and so does the next one)."""
    row = conn.execute(_CURRENT).fetchone()
    in_flight = conn.execute(_WRITES_IN_FLIGHT).fetchone()
    assert row is not None and in_flight is not None
    return None if in_flight[0] else int(row[0])


def unchanged_since(conn: psycopg.Connection, generation: int | None, key: str) -> datetime | None:
    """The time of the last run when it derived its edges at this generation with the same rules and options."""
    if generation is None:
        return None
    row = conn.execute(_STORED, (generation, key)).fetchone()
    return row[0] if row is not None else None


def findings_inputs(conn: psycopg.Connection) -> str | None:
    """What the last run's findings read besides the graph and the zones (a digest), as it saved it."""
    row = conn.execute("SELECT findings_inputs FROM analysis_state WHERE id = 1").fetchone()
    return None if row is None else row[0]


def save(conn: psycopg.Connection, generation: int | None, key: str, at: datetime,
         findings: str | None = None) -> None:
    """Record this run; one that could not know its generation records one no graph will have (-1). A run that
    recorded findings (`findings` set) found at `at` every finding it leaves unresolved: the findings lists read
    that time from here (`findings_found_at`) rather than from each finding's row."""
    conn.execute(_SAVE, {"generation": -1 if generation is None else generation, "fingerprint": key, "at": at,
                         "findings": findings, "found_at": None if findings is None else at})


def mark_own_writes(conn: psycopg.Connection, on: bool) -> None:
    """Writes of this transaction from now on are analysis's own (on) or count as graph changes (off)."""
    conn.execute(_MARK, ("on" if on else "off",))
