// One finding type of one environment: what it is, why it matters, how to fix it, its trend, its principals
// (paginated, filtered by acceptance, accepted as a risk until a date), its choke-point edges on a graph, CSV.
import { api, ApiError, get, hasPermission, request, type Self } from "../api";
import { lineChart } from "../charts";
import { download, formatDate, h, modal, replace, toast } from "../dom";
import { fromApiGraph } from "../graph/model";
import { GraphView } from "../graph/view";
import { pager } from "../pager";
import type { AuditLogView, ListFinding, RelationshipFinding } from "../wire";
import type { TypeSummary } from "./data";

type Finding = RelationshipFinding | ListFinding;
const isRelationship = (f: Finding): f is RelationshipFinding => "FromPrincipal" in f;

const PAGE_SIZE = 25;
const nameOf = (props: Record<string, unknown> | undefined, fallback = "") => String(props?.name ?? fallback);
const acceptedUntil = (f: Finding) => (isRelationship(f) ? f.AcceptedUntil : f.accepted_until);
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

function isoDate(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export function findingDetail(root: HTMLElement, environment: string, summary: TypeSummary, self: Self): () => void {
  const type = summary.type;
  const mayAccept = hasPermission(self, "risks", "ManageRisks");
  const base = `/domains/${encodeURIComponent(environment)}/details?finding=${encodeURIComponent(type.name)}`;
  const table = h("div", { id: "finding-principals", class: "table-scroll" });
  const pages = h("div", { class: "pager-host" });
  const graphHost = h("div", { class: "finding-graph hidden", id: "finding-graph", role: "img", "aria-label": "Choke-point edges" });
  let view: GraphView | null = null;
  let shown: Finding[] = [];
  let skip = 0;
  const acceptance = h("select", { id: "finding-acceptance", onchange: () => { skip = 0; void load(); } },
    h("option", { value: "all" }, "All"), h("option", { value: "unaccepted" }, "Not accepted"),
    h("option", { value: "accepted" }, "Accepted"));

  // Who accepted each finding and why, from the audit log (read only by those allowed to read it).
  async function acceptances(): Promise<Map<string, { who: string; why: string }>> {
    const found = new Map<string, { who: string; why: string }>();
    if (!hasPermission(self, "auth", "ManageUsers")) return found;
    try {
      const logs = (await get<{ data: { logs: AuditLogView[] } }>("/audit?action=eq:UpdateRiskAcceptance&status=eq:success&limit=1000")).data.logs;
      for (const log of logs) {  // newest first: the first entry of a finding is its current acceptance
        const id = String(log.fields.attack_path_id);
        if (!found.has(id)) found.set(id, { who: log.actor_name, why: String(log.fields.reason ?? "") });
      }
    } catch {
      // the dates are still shown
    }
    return found;
  }

  async function load(): Promise<void> {
    try {
      const body = await get<{ count: number; data: Finding[] }>(`${base}&filterAccepted=${acceptance.value}&skip=${skip}&limit=${PAGE_SIZE}`);
      shown = body.data;
      const accepted = shown.some((f) => f.Accepted) ? await acceptances() : new Map();
      replace(table, shown.length ? principalTable(shown, accepted) : h("p", { class: "muted" }, "No finding of this type matches the filter."));
      replace(pages, pager(body.count, skip, PAGE_SIZE, (next) => { skip = next; void load(); }, "finding"));
      if (view) void drawGraph();
    } catch (error) {
      replace(table, h("p", { class: "form-error", role: "alert" }, (error as Error).message));
    }
  }

  function principalTable(findings: Finding[], accepted: Map<string, { who: string; why: string }>): HTMLElement {
    const relationship = type.shape === "relationship";
    const headers = relationship ? ["Principal", "Kind", "Target", "Exposure", "Status", ""] : ["Principal", "Kind", "Impact", "Status", ""];
    return h("table", { class: "data-table" },
      h("thead", null, h("tr", null, headers.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", null, findings.map((f) => h("tr", { "data-finding-id": f.id },
        h("td", null, isRelationship(f) ? nameOf(f.FromPrincipalProps, f.FromPrincipal) : nameOf(f.Props, f.Principal)),
        h("td", null, isRelationship(f) ? f.FromPrincipalKind : f.PrincipalKind),
        relationship ? h("td", null, isRelationship(f) ? nameOf(f.ToPrincipalProps, f.ToPrincipal) : "") : null,
        h("td", { class: "num" }, percent(f.ImpactPercentage)),
        h("td", null, f.Accepted ? [h("span", { class: "chip chip-accepted" }, `Accepted until ${formatDate(acceptedUntil(f))}`),
          accepted.has(String(f.id)) ? h("div", { class: "muted acceptance-note" },
            `by ${accepted.get(String(f.id))!.who}${accepted.get(String(f.id))!.why ? `: ${accepted.get(String(f.id))!.why}` : ""}`) : null] : "Open"),
        h("td", null, mayAccept ? (f.Accepted
          ? h("button", { class: "small", onclick: () => void withdraw(f) }, "Withdraw acceptance")
          : h("button", { class: "small", onclick: () => void accept(f) }, "Accept risk")) : null)))));
  }

  async function accept(finding: Finding): Promise<void> {
    const until = h("input", { id: "accept-until", type: "date", value: isoDate(90), min: isoDate(1), required: true });
    const reason = h("textarea", { id: "accept-reason", rows: 3, maxlength: 1000, placeholder: "Why this risk is accepted (compensating control, planned change…)" });
    const answer = await modal("Accept this risk", [
      h("p", null, `Accepted by ${self.principal_name}. The finding stays listed as accepted until the date, then counts again.`),
      h("label", { for: "accept-until" }, "Accept until"), until,
      h("label", { for: "accept-reason" }, "Reason"), reason,
    ], [{ label: "Cancel", value: "cancel" }, { label: "Accept risk", value: "ok", primary: true }]);
    if (answer !== "ok" || !until.value) return;
    await change(finding, { accepted: true, accept_until: `${until.value}T23:59:59Z`, reason: reason.value.trim() });
  }

  async function withdraw(finding: Finding): Promise<void> {
    await change(finding, { accepted: false });
  }

  async function change(finding: Finding, body: Record<string, unknown>): Promise<void> {
    try {
      await api("PUT", `/attack-paths/${finding.id}/acceptance`, { risk_type: type.name, ...body });
      toast(body.accepted ? "Risk accepted." : "Acceptance withdrawn.");
    } catch (error) {
      toast((error as ApiError).message, "error");
    }
    await load();
  }

  async function exportCsv(): Promise<void> {
    try {
      const response = await request("GET", `${base}&filterAccepted=${acceptance.value}&limit=100000`, undefined, { headers: { Accept: "text/csv" } });
      download(`${environment}-${type.name}.csv`, await response.blob());
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  async function drawGraph(): Promise<void> {
    const ids = shown.map((f) => (isRelationship(f) ? f.ComboGraphRelationID : null)).filter((id): id is number => typeof id === "number");
    graphHost.classList.remove("hidden");
    view ??= new GraphView(graphHost);
    if (!ids.length) {
      view.setData({ nodes: [], edges: [] });
      return;
    }
    try {
      const answer = await api<{ data: any }>("POST", "/graphs/cypher", {
        query: `MATCH (a)-[r]->(b) WHERE id(r) IN [${ids.join(", ")}] RETURN a, r, b`, include_properties: false,
      });
      view.setData(fromApiGraph(answer.data));
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  const trend = summary.trend;
  replace(root, h("article", { class: "finding-detail", "aria-labelledby": "finding-title" },
    h("div", { class: "row" },
      h("h2", { id: "finding-title" }, type.title),
      h("span", { class: `chip severity severity-${summary.severity}` }, summary.severity)),
    h("p", { class: "muted" }, `${type.name} · ${type.family} · ${summary.findings} finding(s), ${summary.impacted} principal(s) impacted, exposure ${summary.exposure.toFixed(1)}%`),
    h("h3", null, "What it is"), h("p", { id: "finding-what" }, type.what),
    h("h3", null, "Why it matters"), h("p", { id: "finding-why" }, type.why),
    h("h3", null, "How to fix it"), h("p", { id: "finding-remediation" }, type.remediation),
    type.references.length ? h("details", null, h("summary", null, "References"),
      h("ul", null, type.references.map((url) => h("li", null, h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, url))))) : null,
    h("h3", null, "Trend"),
    h("div", { class: "chart-grid" },
      h("figure", { class: "card" }, lineChart("Findings", trend.findings), h("figcaption", null, "Findings per analysis")),
      h("figure", { class: "card" }, lineChart("Exposure", trend.exposure, true), h("figcaption", null, "Exposure (%)"))),
    h("div", { class: "row" },
      h("h3", null, "Principals"),
      h("label", { for: "finding-acceptance", class: "inline" }, "Show"), acceptance,
      type.shape === "relationship" ? h("button", { id: "finding-draw", onclick: () => void drawGraph() }, "Draw choke points") : null,
      h("button", { id: "finding-csv", onclick: () => void exportCsv() }, "Export CSV")),
    graphHost, table, pages));
  void load();
  return () => view?.kill();
}
