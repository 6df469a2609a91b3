"""The order rules run in, and what closes a run.

AD first (as the reference): well-known nodes, then the rules reading only collected edges, then
Owns (before ADCS here: ESC4 and ESC9 count template owners, which the reference misses because it
derives Owns after ADCS), the PKI plumbing and the ESC rules reading it, and NTLM reading AdminTo and
enrollment. Azure follows. Privilege zone tagging, the attack-path findings (they read the zones as
tagged) and the data-quality snapshot close the run, each its own timed step.
"""

from __future__ import annotations

import logging
from time import perf_counter

from houndgraph.analysis import data_quality, findings, generation
from houndgraph.analysis.ad import (
    backup,
    dcsync,
    gpo,
    laps,
    local_groups,
    ntlm,
    owns,
    protect_admin_groups,
    trust_keys,
    wellknown,
)
from houndgraph.analysis.adcs import esc1, esc3, esc4, esc6, esc9, esc10, esc13, goldencert, pki
from houndgraph.analysis.azure import app_roles as azure_app_roles
from houndgraph.analysis.azure import approvers as azure_approvers
from houndgraph.analysis.azure import hybrid
from houndgraph.analysis.azure import roles as azure_roles
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Rule
from houndgraph.analysis.runner import AnalysisReport
from houndgraph.analysis.zones import tag_zones

AD_RULES: tuple[Rule, ...] = (
    wellknown.RULE,
    dcsync.RULE,
    protect_admin_groups.RULE,
    laps.RULE,
    trust_keys.RULE,
    local_groups.ADMIN_RULE,
    local_groups.RDP_RULE,
    backup.RULE,
    owns.RULE,
    pki.CERTIFICATES_RULE,
    pki.ENROLL_ON_BEHALF_OF_RULE,
    goldencert.RULE,
    esc1.RULE,
    esc3.RULE,
    esc4.RULE,
    esc6.RULE_6A,
    esc6.RULE_6B,
    esc9.RULE_9A,
    esc9.RULE_9B,
    esc10.RULE_10A,
    esc10.RULE_10B,
    esc13.RULE,
    ntlm.RULE,
    gpo.RULE,
)

AZURE_RULES: tuple[Rule, ...] = (
    azure_roles.RULE,
    azure_app_roles.RULE,
    hybrid.RULE,
    azure_approvers.RULE,
)

ALL_RULES: tuple[Rule, ...] = AD_RULES + AZURE_RULES

log = logging.getLogger(__name__)


def tag_privilege_zones(ctx: Context, report: AnalysisReport) -> None:
    report.zones = tag_zones(ctx, graph_unchanged=report.unchanged_since is not None)


def record_findings(ctx: Context, report: AnalysisReport) -> None:
    """Findings, repeated from the last run when nothing they read changed since: the graph (the rules were
    skipped), the zone tags (tagging changed nothing) and the accepted findings."""
    accepted, report.findings_inputs = findings.accepted(ctx)
    if (report.unchanged_since is not None and report.zones is not None and not report.zones.changed
            and report.findings_inputs == generation.findings_inputs(ctx.conn)):
        report.findings_repeated = findings.repeat(ctx, report.unchanged_since)
        if report.findings_repeated:
            log.info("analysis findings repeated from the analysis of %s", report.unchanged_since.isoformat())
            return
    findings.record(ctx, accepted)


def record_data_quality(ctx: Context, report: AnalysisReport) -> None:
    if report.unchanged_since is not None:
        report.data_quality_run_id = data_quality.repeat_snapshot(ctx, report.unchanged_since)
    else:
        report.data_quality_run_id = data_quality.record_snapshot(ctx)


FINISHING_STEPS = (tag_privilege_zones, record_findings, record_data_quality)


def finish_run(ctx: Context, report: AnalysisReport) -> None:
    """The steps after every rule, in order: privilege zones, findings, the data-quality snapshot."""
    for step in FINISHING_STEPS:
        started = perf_counter()
        step(ctx, report)
        report.steps[step.__name__] = perf_counter() - started
        log.info("analysis step %s: %.3f s", step.__name__, report.steps[step.__name__])
