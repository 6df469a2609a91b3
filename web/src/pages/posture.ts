// Posture: per domain or tenant (or all of them), exposure, Tier Zero size and findings per analysis in a
// date range, as charts; the latest figures with their change since the analysis before.
import { get, request } from "../api";
import { lineChart, type Series } from "../charts";
import { download, formatDate, h, replace, toast } from "../dom";
import type { RiskPostureStat } from "../wire";
import { environmentSelect, listEnvironments, type Environment } from "../environments";

type PostureStat = RiskPostureStat;

type Measure = "exposure_index" | "tier_zero_count" | "finding_count" | "critical_risk_count";
const MEASURES: { key: Measure; label: string; percent?: boolean; lowerIsBetter: true }[] = [
  { key: "exposure_index", label: "Exposure", percent: true, lowerIsBetter: true },
  { key: "tier_zero_count", label: "Tier Zero size", lowerIsBetter: true },
  { key: "finding_count", label: "Findings", lowerIsBetter: true },
  { key: "critical_risk_count", label: "Critical finding types", lowerIsBetter: true },
];
// The most posture rows one page asks for: a run a day for a year over a few environments.
const LIMIT = 5000;

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const format = (measure: (typeof MEASURES)[number], value: number) => (measure.percent ? `${value.toFixed(1)}%` : String(value));

function change(measure: (typeof MEASURES)[number], now: number, before: number | undefined): HTMLElement | null {
  if (before === undefined) return null;
  const diff = now - before;
  const text = diff === 0 ? "no change" : `${diff > 0 ? "+" : ""}${measure.percent ? diff.toFixed(1) + " pts" : diff}`;
  const better = diff === 0 ? "same" : diff < 0 ? "better" : "worse";
  return h("span", { class: `stat-change change-${better}`, title: "Since the analysis before" }, text);
}

/** The latest row of each environment and the row of the run before it. */
function latestPair(rows: PostureStat[]): { latest: PostureStat[]; before: PostureStat[] } {
  const runs = [...new Set(rows.map((r) => r.created_at))].sort();
  const last = runs.at(-1);
  const previous = runs.at(-2);
  return { latest: rows.filter((r) => r.created_at === last), before: rows.filter((r) => r.created_at === previous) };
}

export function posturePage(root: HTMLElement): void {
  const content = h("div", { id: "posture-content" });
  const controls = h("div", { class: "row page-controls" });
  const from = h("input", { type: "date", id: "posture-from", value: day(-90), onchange: () => void load() });
  const to = h("input", { type: "date", id: "posture-to", value: day(0), onchange: () => void load() });
  let environment = "";
  let environments: Environment[] = [];

  async function load(): Promise<void> {
    replace(content, h("p", { class: "muted" }, "Loading…"));
    try {
      const filter = environment ? `&domain_sid=eq:${encodeURIComponent(environment)}` : "";
      const start = new Date(`${from.value}T00:00:00`).toISOString();
      const end = new Date(new Date(`${to.value}T00:00:00`).getTime() + 86_400_000).toISOString();
      const rows = (await get<{ data: PostureStat[] }>(
        `/posture-stats?from=${encodeURIComponent(start)}&to=${encodeURIComponent(end)}&limit=${LIMIT}&sort_by=created_at${filter}`)).data;
      if (!rows.length) {
        replace(content, h("p", { class: "muted empty-state" }, "No analysis in this date range: widen the range, or upload collected data "
          + "(Administration → File Ingest) to have one run."));
        return;
      }
      const names = new Map(environments.map((e) => [e.id, e.name]));
      const { latest, before } = latestPair(rows);
      const sum = (list: PostureStat[], key: Measure) => list.reduce((total, r) => total + r[key], 0);
      const exposure = (list: PostureStat[]) => {
        const principals = list.reduce((t, r) => t + r.principal_count, 0);
        return principals ? (100 * list.reduce((t, r) => t + r.exposed_count, 0)) / principals : 0;
      };
      const figure = (list: PostureStat[], key: Measure) => (key === "exposure_index" ? exposure(list) : sum(list, key));
      const bySid = new Map<string, PostureStat[]>();
      for (const row of rows) bySid.set(row.domain_sid, [...(bySid.get(row.domain_sid) ?? []), row]);
      replace(content,
        h("p", { class: "muted", id: "posture-latest" }, `Latest analysis: ${formatDate(latest[0].created_at)}`
          + (before.length ? `; compared with ${formatDate(before[0].created_at)}.` : "; no analysis before it in the range.")),
        h("div", { class: "stat-grid" }, MEASURES.map((m) => h("div", { class: "stat card", "data-stat": m.key },
          h("span", { class: "stat-value" }, format(m, figure(latest, m.key))),
          h("span", { class: "stat-label" }, m.label),
          change(m, figure(latest, m.key), before.length ? figure(before, m.key) : undefined)))),
        h("h2", null, "Over time"),
        h("div", { class: "chart-grid" }, MEASURES.map((m) => {
          const series: Series[] = [...bySid].map(([sid, list]) => ({
            name: names.get(sid) ?? sid, points: list.map((r) => ({ t: Date.parse(r.created_at), v: r[m.key] })),
          }));
          return h("figure", { class: "card", "data-chart": m.key }, lineChart(m.label, series, m.percent),
            h("figcaption", null, m.label),
            series.length > 1 ? h("div", { class: "legend" }, series.map((s, i) => h("span", { class: `legend-item series-${i % 6}` }, s.name))) : null);
        })),
        environment ? null : h("h2", null, "Per domain and tenant"),
        environment ? null : h("table", { class: "data-table", id: "posture-table" },
          h("thead", null, h("tr", null, ["Domain or tenant", ...MEASURES.map((m) => m.label)].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", null, latest.map((r) => h("tr", null, h("td", null, names.get(r.domain_sid) ?? r.domain_sid),
            MEASURES.map((m) => h("td", { class: "num" }, format(m, r[m.key]), " ",
              change(m, r[m.key], before.find((b) => b.domain_sid === r.domain_sid)?.[m.key]))))))));
    } catch (error) {
      replace(content, h("p", { class: "form-error", role: "alert" }, (error as Error).message));
    }
  }

  // The report's trend starts at the range's first day; it always ends now.
  async function downloadReport(): Promise<void> {
    const days = Math.max(1, Math.ceil((Date.now() - new Date(`${from.value}T00:00:00`).getTime()) / 86_400_000));
    try {
      const response = await request("GET", `/attack-paths/report?days=${days}${environment ? `&environment=${encodeURIComponent(environment)}` : ""}`);
      const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") ?? "")?.[1] ?? "houndgraph-report.html";
      download(name, await response.blob());
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  replace(root, h("div", { class: "page posture" }, h("h1", null, "Posture"), controls, content));
  void (async () => {
    try {
      environments = await listEnvironments();
    } catch (error) {
      replace(content, h("p", { class: "form-error", role: "alert" }, (error as Error).message));
      return;
    }
    replace(controls,
      environmentSelect("posture-environment", environments, null, (value) => { environment = value; void load(); }, "All domains and tenants"),
      h("div", { class: "field-inline" }, h("label", { for: "posture-from" }, "From"), from),
      h("div", { class: "field-inline" }, h("label", { for: "posture-to" }, "To"), to),
      h("button", { id: "posture-report", title: "One HTML file: posture, trend, what to fix first; print it to PDF from the browser",
        onclick: () => void downloadReport() }, "Download report"));
    await load();
  })();
}
