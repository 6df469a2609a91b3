// Data quality: the latest per-domain / per-tenant figures and their history as line charts (SVG).
import { get } from "../api";
import { h, replace, svg } from "../dom";

interface Environment {
  type: string;
  name: string;
  id: string;
  collected: boolean;
}

type Snapshot = Record<string, number | string> & { created_at: string };

const LABELS: Record<string, string> = {
  ous: "OUs", gpos: "GPOs", aiacas: "AIA CAs", rootcas: "Root CAs", enterprisecas: "Enterprise CAs",
  ntauthstores: "NTAuth stores", certtemplates: "Certificate templates", issuancepolicies: "Issuance policies",
  acls: "ACLs", domains: "Domains", tenants: "Tenants", aiacas_count: "AIA CAs",
};
const labelOf = (key: string) => LABELS[key] ?? key.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());

const SKIP = new Set(["id", "created_at", "updated_at", "deleted_at", "run_id", "domain_sid", "tenant_id", "tenantid"]);

function statsPath(value: string): string {
  if (value === "platform:ad") return "/platform/ad/data-quality-stats";
  if (value === "platform:azure") return "/platform/azure/data-quality-stats";
  const [type, id] = value.split("|");
  return type === "azure" ? `/azure-tenants/${encodeURIComponent(id)}/data-quality-stats` : `/ad-domains/${encodeURIComponent(id)}/data-quality-stats`;
}

function lineChart(title: string, points: { t: number; v: number }[], percent: boolean): SVGElement {
  const width = 320;
  const height = 140;
  const pad = 28;
  const ts = points.map((p) => p.t);
  const vs = points.map((p) => p.v);
  const tMin = Math.min(...ts);
  const tMax = Math.max(...ts);
  const vMax = percent ? 1 : Math.max(1, ...vs);
  const x = (t: number) => pad + (tMax === tMin ? (width - 2 * pad) / 2 : ((t - tMin) / (tMax - tMin)) * (width - 2 * pad));
  const y = (v: number) => height - pad - (v / vMax) * (height - 2 * pad);
  const path = points.map((p, i) => `${i ? "L" : "M"}${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ");
  const label = (v: number) => (percent ? `${Math.round(v * 100)}%` : String(v));
  return svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img", "aria-label": `${title} over time` },
    svg("title", {}, `${title} over time`),
    svg("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, class: "axis" }),
    svg("line", { x1: pad, y1: pad, x2: pad, y2: height - pad, class: "axis" }),
    svg("text", { x: 2, y: pad + 4, class: "tick" }, label(vMax)),
    svg("text", { x: 2, y: height - pad + 4, class: "tick" }, "0"),
    svg("text", { x: pad, y: height - 8, class: "tick" }, new Date(tMin).toLocaleDateString()),
    svg("text", { x: width - pad, y: height - 8, class: "tick", "text-anchor": "end" }, new Date(tMax).toLocaleDateString()),
    svg("path", { d: path, class: "series" }),
    ...points.map((p) => svg("circle", { cx: x(p.t).toFixed(1), cy: y(p.v).toFixed(1), r: 3, class: "point" },
      svg("title", {}, `${new Date(p.t).toLocaleString()}: ${label(p.v)}`))));
}

export function dataQualityPage(root: HTMLElement): void {
  const select = h("select", { id: "dq-environment", "aria-label": "Environment", onchange: () => void load() });
  const content = h("div", { id: "dq-content" });

  async function load(): Promise<void> {
    if (!select.value) {
      replace(content, h("p", { class: "muted" }, "No data collected yet: upload files under Administration → File Ingest."));
      return;
    }
    replace(content, h("p", { class: "muted" }, "Loading…"));
    try {
      const history = (await get<{ data: Snapshot[] }>(`${statsPath(select.value)}?limit=100&sort_by=created_at`)).data ?? [];
      if (!history.length) {
        replace(content, h("p", { class: "muted" }, "No figures yet for this environment."));
        return;
      }
      const latest = history[history.length - 1];
      const keys = Object.keys(latest).filter((k) => !SKIP.has(k) && typeof latest[k] === "number");
      replace(content,
        h("p", { class: "muted" }, `Latest analysis: ${new Date(latest.created_at).toLocaleString()} — ${history.length} snapshot(s).`),
        h("div", { class: "stat-grid" }, keys.map((k) => h("div", { class: "stat card", "data-stat": k },
          h("span", { class: "stat-value" }, k.endsWith("completeness") ? `${Math.round(Number(latest[k]) * 100)}%` : String(latest[k])),
          h("span", { class: "stat-label" }, labelOf(k))))),
        h("h2", null, "History"),
        h("div", { class: "chart-grid" }, keys.map((k) => h("figure", { class: "card" },
          lineChart(labelOf(k), history.map((s) => ({ t: Date.parse(s.created_at), v: Number(s[k]) })), k.endsWith("completeness")),
          h("figcaption", null, labelOf(k))))));
    } catch (error) {
      replace(content, h("p", { class: "form-error" }, (error as Error).message));
    }
  }

  replace(root, h("div", { class: "page" },
    h("h1", null, "Data Quality"),
    h("div", { class: "row" }, h("label", { for: "dq-environment" }, "Environment"), select),
    content));

  void (async () => {
    try {
      const environments = (await get<{ data: Environment[] }>("/available-domains")).data ?? [];
      const hasAd = environments.some((e) => e.type === "active-directory");
      const hasAzure = environments.some((e) => e.type === "azure");
      replace(select,
        environments.map((e) => h("option", { value: `${e.type === "azure" ? "azure" : "ad"}|${e.id}` },
          `${e.name} (${e.type === "azure" ? "Azure tenant" : "AD domain"})`)),
        hasAd ? h("option", { value: "platform:ad" }, "All Active Directory domains") : null,
        hasAzure ? h("option", { value: "platform:azure" }, "All Azure tenants") : null);
    } catch {
      replace(select);
    }
    await load();
  })();
}
