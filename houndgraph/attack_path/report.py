"""The posture report for the people who fund the fixes: one self-contained HTML file (inline style and
SVG, no asset loaded from anywhere) per domain or tenant, or for all of them, printable to PDF by a browser.

It says, per environment: exposure, Tier Zero size and findings at the latest analysis and their change
since the one before, their trend over the window, and the finding types to fix first with what each is and
how to remediate it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape

from houndgraph.analysis.findings.finding_types import FindingType, severity
from houndgraph.models import AttackPathPosture, AttackPathRiskCount

TOP_FINDINGS = 10
# The figures of an environment's latest analysis: label, posture column, whether it is a percentage.
_FIGURES = (("Exposure", "exposure_index", True), ("Tier Zero size", "tier_zero_count", False),
            ("Findings", "finding_count", False), ("Critical finding types", "critical_risk_count", False))
_SEVERITY_RANK = {"critical": 0, "high": 1, "moderate": 2, "low": 3}


@dataclass(frozen=True, slots=True)
class TopFinding:
    type: FindingType
    severity: str
    exposure: float
    impacted: int
    findings: int


@dataclass(frozen=True, slots=True)
class EnvironmentReport:
    object_id: str
    name: str
    history: list[AttackPathPosture]
    top: list[TopFinding]


@dataclass(frozen=True, slots=True)
class Report:
    title: str
    generated_at: datetime
    start: datetime
    end: datetime
    environments: list[EnvironmentReport]


def top_findings(counts: Sequence[AttackPathRiskCount], types: dict[str, FindingType]) -> list[TopFinding]:
    """The types found by the latest run among `counts` (one environment's), what to fix first first."""
    if not counts:
        return []
    latest = max(count.created_at for count in counts)
    found = [TopFinding(types[c.finding], severity(c.composite_risk / 100), c.composite_risk, c.impacted_asset_count,
                        c.finding_count)
             for c in counts if c.created_at == latest and c.finding in types]
    found.sort(key=lambda f: (_SEVERITY_RANK[f.severity], -f.exposure, -f.impacted, -f.findings, f.type.title))
    return found[:TOP_FINDINGS]


_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #1c2430; margin: 2rem auto;
  max-width: 60rem; padding: 0 1rem; line-height: 1.45; }
h1 { margin-bottom: 0.2rem; } .muted { color: #5b6573; }
section.environment { break-before: page; } section.environment:first-of-type { break-before: auto; }
.figures { display: grid; grid-template-columns: repeat(4, 1fr); gap: 0.75rem; margin: 1rem 0; }
.figure { border: 1px solid #d5dbe3; border-radius: 8px; padding: 0.6rem 0.8rem; }
.figure b { display: block; font-size: 1.6rem; } .better { color: #2e7d32; } .worse { color: #c62828; }
svg { width: 100%; height: auto; max-height: 14rem; } .axis { stroke: #a3adb8; }
.tick { fill: #5b6573; font-size: 10px; }
.line { fill: none; stroke: #1f6feb; stroke-width: 2; } .dot { fill: #1f6feb; }
.charts { display: grid; grid-template-columns: repeat(3, 1fr); gap: 0.75rem; } figure { margin: 0; }
.finding { border-top: 1px solid #d5dbe3; padding: 0.5rem 0; break-inside: avoid; }
.finding h3 { margin: 0.2rem 0; font-size: 1.05rem; }
.severity { display: inline-block; padding: 0 0.5rem; border-radius: 999px; font-size: 0.8rem; font-weight: 600;
  text-transform: capitalize; border: 1px solid #8e1c1c; }
.critical { background: #8e1c1c; color: #fff; } .high { background: #c2410c; color: #fff; border-color: #c2410c; }
.moderate { background: #f2b705; color: #1c1400; border-color: #c99700; }
.low { background: #eef1f5; border-color: #d5dbe3; }
@media print { body { margin: 0; max-width: none; } }
"""


def _change(now: float, before: float | None, percent: bool = False) -> str:
    if before is None:
        return '<span class="muted">first analysis</span>'
    diff = now - before
    if abs(diff) < 1e-9:
        return '<span class="muted">no change</span>'
    text = f"{diff:+.1f} pts" if percent else f"{diff:+.0f}"
    return f'<span class="{"better" if diff < 0 else "worse"}">{text} since the analysis before</span>'


def _chart(title: str, points: list[tuple[datetime, float]], percent: bool) -> str:
    width, height, pad = 320, 160, 34
    if not points:
        return ""
    times = [moment.timestamp() for moment, _ in points]
    low, high = min(times), max(times)
    top = 100.0 if percent else max(1.0, *(value for _, value in points))

    def x(moment: float) -> float:
        return pad + (width - 2 * pad) * (0.5 if high == low else (moment - low) / (high - low))

    def y(value: float) -> float:
        return height - pad - (height - 2 * pad) * value / top

    at = [(x(t), y(v)) for t, (_, v) in zip(times, points, strict=True)]
    path = " ".join(f"{'L' if i else 'M'}{px:.1f},{py:.1f}" for i, (px, py) in enumerate(at))
    dots = "".join(f'<circle class="dot" cx="{px:.1f}" cy="{py:.1f}" r="3"/>' for px, py in at)
    top_label = f"{top:.0f}%" if percent else f"{top:g}"
    return (f'<figure><svg viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)} over time">'
            f'<line class="axis" x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}"/>'
            f'<line class="axis" x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}"/>'
            f'<text class="tick" x="2" y="{pad + 4}">{top_label}</text>'
            f'<text class="tick" x="2" y="{height - pad + 4}">0</text>'
            f'<text class="tick" x="{pad}" y="{height - 8}">{points[0][0]:%Y-%m-%d}</text>'
            f'<text class="tick" x="{width - pad}" y="{height - 8}" text-anchor="end">{points[-1][0]:%Y-%m-%d}</text>'
            f'<path class="line" d="{path}"/>{dots}</svg>'
            f'<figcaption class="muted">{escape(title)}</figcaption></figure>')


def _environment(report: EnvironmentReport) -> str:
    latest = report.history[-1] if report.history else None
    before = report.history[-2] if len(report.history) > 1 else None
    parts = [f'<section class="environment" data-environment="{escape(report.object_id)}">',
             f"<h2>{escape(report.name)}</h2>"]
    if latest is None:
        parts.append('<p class="muted">No analysis in this period.</p></section>')
        return "".join(parts)
    figures = [(label, f"{getattr(latest, field):.1f}%" if percent else str(getattr(latest, field)),
                _change(getattr(latest, field), None if before is None else getattr(before, field), percent))
               for label, field, percent in _FIGURES]
    parts.append(f'<p class="muted">Latest analysis {latest.created_at:%Y-%m-%d %H:%M} UTC. Exposure: the share of '
                 "enabled principals outside Tier Zero with an attack path into it.</p>")
    parts.append('<div class="figures">' + "".join(
        f'<div class="figure" data-figure="{escape(label)}">{escape(label)}<b>{value}</b>{change}</div>'
        for label, value, change in figures) + "</div>")
    parts.append('<div class="charts">'
                 + _chart("Exposure (%)", [(p.created_at, p.exposure_index) for p in report.history], True)
                 + _chart("Findings", [(p.created_at, float(p.finding_count)) for p in report.history], False)
                 + _chart("Tier Zero size", [(p.created_at, float(p.tier_zero_count)) for p in report.history], False)
                 + "</div>")
    parts.append("<h2>What to fix first</h2>")
    if not report.top:
        parts.append('<p class="muted">The latest analysis found nothing to fix.</p>')
    for finding in report.top:
        parts.append(
            f'<div class="finding" data-finding="{escape(finding.type.name)}"><h3>{escape(finding.type.title)} '
            f'<span class="severity {finding.severity}">{finding.severity}</span></h3>'
            f'<p class="muted">{finding.findings} finding(s), {finding.impacted} principal(s) impacted, exposure '
            f"{finding.exposure:.1f}%</p><p>{escape(finding.type.what)}</p>"
            f"<p><b>Why it matters.</b> {escape(finding.type.why)}</p>"
            f"<p><b>How to fix it.</b> {escape(finding.type.remediation)}</p></div>")
    parts.append("</section>")
    return "".join(parts)


def render(report: Report) -> str:
    body = "".join(_environment(environment) for environment in report.environments) or \
        '<p class="muted">No domain or tenant has been analysed yet: upload collected data first.</p>'
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(report.title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_STYLE}</style></head><body>'
            f"<h1>{escape(report.title)}</h1>"
            f'<p class="muted">Generated {report.generated_at:%Y-%m-%d %H:%M} UTC by houndgraph; trend from '
            f"{report.start:%Y-%m-%d} to {report.end:%Y-%m-%d}.</p>{body}</body></html>\n")
