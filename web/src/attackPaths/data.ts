// What the Attack Paths page reads: the finding types with their explanation, and each environment's
// per-run counts (the sparkline of every type at once: `finding=neq:` with no name matches them all).
import { get } from "../api";
import type { Point } from "../charts";
import type { AttackPathType, RiskCounts } from "../wire";

export type FindingType = AttackPathType;
export type RiskCount = RiskCounts;

export interface TypeSummary {
  type: FindingType;
  severity: Severity;
  exposure: number;
  impacted: number;
  findings: number;
  /** Findings at the analysis before the latest one; null when there was none in the window. */
  previous: number | null;
  trend: { findings: Point[]; exposure: Point[] };
}

export type Severity = "critical" | "high" | "moderate" | "low";
export const SEVERITIES: Severity[] = ["critical", "high", "moderate", "low"];

/** BloodHound Enterprise's bands, as the service grades a finding's share of exposed principals. */
export function severityOf(percent: number): Severity {
  if (percent >= 95) return "critical";
  if (percent >= 80) return "high";
  if (percent >= 40) return "moderate";
  return "low";
}

let types: Promise<Map<string, FindingType>> | null = null;

export function findingTypes(): Promise<Map<string, FindingType>> {
  types ??= get<{ types: FindingType[] }>("/attack-path-types")
    .then((body) => new Map(body.types.map((t) => [t.name, t])))
    .catch((error) => {
      types = null;
      throw error;
    });
  return types;
}

export function windowStart(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString();
}

export async function riskCounts(environment: string, days: number): Promise<RiskCount[]> {
  const path = `/domains/${encodeURIComponent(environment)}/sparkline?finding=neq:&from=${encodeURIComponent(windowStart(days))}`;
  return (await get<{ data: RiskCount[] }>(path)).data;
}

/** The types found by the latest analysis in the window, what to fix first first. */
export function summarise(counts: RiskCount[], known: Map<string, FindingType>): { at: string | null; rows: TypeSummary[] } {
  const runs = [...new Set(counts.map((c) => c.created_at))].sort();
  const latest = runs.at(-1) ?? null;
  const before = runs.at(-2) ?? null;
  const byType = new Map<string, RiskCount[]>();
  for (const count of counts) {
    const list = byType.get(count.Finding) ?? [];
    list.push(count);
    byType.set(count.Finding, list);
  }
  const rows: TypeSummary[] = [];
  for (const [name, history] of byType) {
    const now = history.find((c) => c.created_at === latest);
    const type = known.get(name);
    if (!now || !type || now.FindingCount === 0) continue;
    const previous = before === null ? null : history.find((c) => c.created_at === before)?.FindingCount ?? 0;
    rows.push({
      type, severity: severityOf(now.CompositeRisk), exposure: now.CompositeRisk, impacted: now.ImpactedAssetCount,
      findings: now.FindingCount, previous,
      trend: {
        findings: history.map((c) => ({ t: Date.parse(c.created_at), v: c.FindingCount })),
        exposure: history.map((c) => ({ t: Date.parse(c.created_at), v: c.CompositeRisk })),
      },
    });
  }
  const rank = (s: Severity) => SEVERITIES.indexOf(s);
  rows.sort((a, b) => rank(a.severity) - rank(b.severity) || b.exposure - a.exposure || b.impacted - a.impacted
    || b.findings - a.findings || a.type.title.localeCompare(b.type.title));
  return { at: latest, rows };
}
