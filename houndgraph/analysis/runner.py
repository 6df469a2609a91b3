"""One analysis run: every rule in order, each writing its edges before the next reads the graph.

The run is one transaction (a savepoint when the caller already has one) under the graph writer's
advisory lock, so an ingest task never interleaves with it and a failed run leaves the previous
derived edges in place.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from time import perf_counter
from typing import TYPE_CHECKING

import psycopg

from houndgraph.analysis import generation
from houndgraph.analysis.context import AnalysisOptions, Context
from houndgraph.analysis.rule import Rule
from houndgraph.analysis.sink import EdgeCounts, StoredEdges, write_kind
from houndgraph.graph.store.sql import WRITE_LOCK_ID

if TYPE_CHECKING:
    from houndgraph.analysis.zones import ZoneReport

log = logging.getLogger(__name__)

Progress = Callable[[str], None]
# Work the caller runs between the rules and the closing steps, in the run's transaction (the datapipe builds the
# inbound edge index there after a bulk ingest: `graph.store.bulk`).
AfterRules = Callable[[psycopg.Connection], None]


@dataclass(slots=True)
class RuleReport:
    name: str
    seconds: float
    edges: dict[str, EdgeCounts] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(counts.total for counts in self.edges.values())

    @property
    def added(self) -> int:
        return sum(counts.created for counts in self.edges.values())

    @property
    def removed(self) -> int:
        return sum(counts.deleted for counts in self.edges.values())


@dataclass(slots=True)
class AnalysisReport:
    started_at: datetime
    seconds: float = 0.0
    rules: list[RuleReport] = field(default_factory=list)
    # Set when the run ended with a data-quality snapshot (a full run).
    data_quality_run_id: str | None = None
    # Set when the run tagged privilege zones (a full run).
    zones: ZoneReport | None = None
    # Seconds of each step that closes a full run (zones, findings, data quality).
    steps: dict[str, float] = field(default_factory=dict)
    # Set when the rules did not run: nothing was written to the graph since the run at this time derived the
    # edges, with the same rules and options; they stand as they are.
    unchanged_since: datetime | None = None
    # A digest of what the run's findings read besides the graph and the zones (the accepted findings); the
    # next run repeats these findings when it finds the graph, the zones and this unchanged.
    findings_inputs: str | None = None
    # Set when the run repeated the last run's findings and history instead of computing them.
    findings_repeated: bool = False

    def edges(self, kind: str) -> int:
        return sum(rule.edges[kind].total for rule in self.rules if kind in rule.edges)


def run_rules(conn: psycopg.Connection, rules: Sequence[Rule], *, options: AnalysisOptions | None = None,
              progress: Progress | None = None, now: datetime | None = None,
              finish: Callable[[Context, AnalysisReport], None] | None = None,
              after_rules: AfterRules | None = None) -> AnalysisReport:
    """Run `rules` in order, then `after_rules`; `finish` runs last, in the same transaction (tagging, data
    quality)."""
    options = options or AnalysisOptions()
    context = Context(conn, now or datetime.now(UTC), options)
    report = AnalysisReport(started_at=context.now)
    key = generation.fingerprint(rules, options, None if finish is None else finish.__qualname__)
    began = perf_counter()
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK_ID,))
        graph_generation = generation.current(conn)
        generation.mark_own_writes(conn, True)
        report.unchanged_since = generation.unchanged_since(conn, graph_generation, key)
        if report.unchanged_since is not None:
            log.info("analysis rules skipped: no graph write since the analysis of %s (generation %s)",
                     report.unchanged_since.isoformat(), graph_generation)
        else:
            _refresh_statistics(conn)
            stored = StoredEdges.load(context, (kind for rule in rules for kind in rule.produces))
            for rule in rules:
                report.rules.append(_run_rule(context, rule, stored, progress))
        if after_rules is not None:
            started = perf_counter()
            after_rules(conn)
            report.steps[after_rules.__name__] = perf_counter() - started
            log.info("analysis step %s: %.3f s", after_rules.__name__, report.steps[after_rules.__name__])
        if finish is not None:
            finish(context, report)
        generation.save(conn, graph_generation, key, context.now, report.findings_inputs)
        generation.mark_own_writes(conn, False)
    report.seconds = perf_counter() - began
    log.info("analysis: %d rules in %.3f s", len(report.rules), report.seconds)
    return report


# The graph's tables whose statistics describe a smaller table than there is now: never analysed since they were
# created or emptied (TRUNCATE), or grown by more than a tenth since (in pages, which the file's size gives exactly).
_STALE_TABLES = """
SELECT c.relname FROM pg_class c
WHERE c.oid IN ('node'::regclass, 'edge'::regclass)
  AND (c.reltuples < 0 OR pg_relation_size(c.oid) / current_setting('block_size')::int > c.relpages * 1.1 + 10)
ORDER BY 1
"""


def _refresh_statistics(conn: psycopg.Connection) -> None:
    """Give the planner the graph as it now is before the rules read it. Autovacuum analyses a changed table only
    when it next looks (every minute), so an analysis that follows an ingest at once was planned on statistics of
    the tables as they were before it: in one suite run a findings read after a clear and a re-ingest (20k users)
    ran for over five minutes, planned before autovacuum had analysed the new rows (not reproduced alone). Only a
    table that grew by more than a tenth is sampled: ANALYZE of both tables takes 0.6-1.6 s at 100k objects and
    10-13 s at 1M, too much for every small upload into a large graph."""
    stale = [row[0] for row in conn.execute(_STALE_TABLES)]
    if stale:
        started = perf_counter()
        conn.execute(f"ANALYZE {', '.join(stale)}")  # names from the catalogue: node, edge
        log.info("analysis: statistics of %s refreshed in %.3f s", " and ".join(stale), perf_counter() - started)


def _run_rule(context: Context, rule: Rule, stored: StoredEdges, progress: Progress | None) -> RuleReport:
    if progress is not None:
        progress(rule.name)
    started = perf_counter()
    derived = rule.compute(context)
    report = RuleReport(rule.name, 0.0)
    for kind in rule.produces:
        report.edges[kind] = write_kind(context, kind, derived.get(kind, ()), stored)
        context.wrote_edges(kind)
    report.seconds = perf_counter() - started
    log.info("analysis rule %s: %.3f s, %d edges added, %d removed, %d in all", rule.name,
             report.seconds, report.added, report.removed, report.total)
    return report
