"""Post-processing analysis over the graph: derived attack edges, Tier Zero tagging, data quality.

The datapipe calls `run_analysis(conn)` after ingest (and when analysis is requested). Each rule lives
in its own module; `rule_order` lists them in the order they run.
"""

from __future__ import annotations

from datetime import datetime

import psycopg

from houndgraph.analysis.context import AnalysisOptions
from houndgraph.analysis.rule import Rule
from houndgraph.analysis.rule_order import ALL_RULES, finish_run
from houndgraph.analysis.runner import AfterRules, AnalysisReport, Progress, RuleReport, run_rules


def run_analysis(conn: psycopg.Connection, *, citrix_rdp_support: bool = False, tag_parent_objects: bool = True,
                 extension_traversable_edges: tuple[str, ...] = (), progress: Progress | None = None,
                 now: datetime | None = None, after_rules: AfterRules | None = None) -> AnalysisReport:
    """Recompute every derived edge, tag privilege zones, and record a data-quality snapshot.

    `progress` is called with each step's name as it starts; `after_rules` runs between the rules and the closing
    steps. The work is one transaction on `conn`.
    """
    return run_rules(conn, ALL_RULES, options=AnalysisOptions(citrix_rdp_support=citrix_rdp_support,
                                                            tag_parent_objects=tag_parent_objects,
                                                            extension_traversable_edges=extension_traversable_edges),
                     progress=progress, now=now, finish=finish_run, after_rules=after_rules)


__all__ = ["ALL_RULES", "AnalysisOptions", "AnalysisReport", "Rule", "RuleReport", "run_analysis", "run_rules"]
