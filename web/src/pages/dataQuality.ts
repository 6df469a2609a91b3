// Data quality: the latest per-domain / per-tenant figures and their history as line charts (SVG).
import { get } from "../api";
import { lineChart } from "../charts";
import { h, replace } from "../dom";

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
          lineChart(labelOf(k), history.map((s) => ({ t: Date.parse(s.created_at), v: Number(s[k]) * (k.endsWith("completeness") ? 100 : 1) })),
            k.endsWith("completeness")),
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
