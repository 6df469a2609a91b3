// Attack Paths: per domain or tenant, the finding types of the latest analysis grouped by severity and
// sorted by what to fix first (exposure, then impact); one type's detail beside the list.
// Route: /attack-paths[/<environment id>[/<finding type>]].
import { api, hasPermission } from "../api";
import { sparkline } from "../charts";
import { formatDate, h, replace, toast } from "../dom";
import { environmentSelect, listEnvironments } from "../environments";
import type { AppContext } from "../main";
import { findingTypes, riskCounts, SEVERITIES, summarise, type TypeSummary } from "./data";
import { findingDetail } from "./finding";

const WINDOWS = [{ days: 30, label: "30 days" }, { days: 90, label: "90 days" }, { days: 365, label: "1 year" }];

function delta(summary: TypeSummary): string {
  if (summary.previous === null) return "";
  const change = summary.findings - summary.previous;
  return change === 0 ? "±0" : change > 0 ? `+${change}` : String(change);
}

export function attackPathsPage(root: HTMLElement, context: AppContext, path: string): () => void {
  const [, , wantedEnvironment, wantedType] = path.split("/").map(decodeURIComponent);
  const list = h("section", { class: "finding-list", id: "finding-list", "aria-label": "Finding types" });
  const detail = h("section", { class: "finding-panel", id: "finding-detail", "aria-live": "polite" });
  const header = h("div", { class: "row page-controls" });
  let environment = wantedEnvironment ?? "";
  let days = 30;
  let rows: TypeSummary[] = [];
  let selected: string | null = wantedType ?? null;
  let closeDetail: (() => void) | null = null;

  function setUrl(): void {
    const parts = ["/ui/attack-paths", environment, selected].filter(Boolean).map((p) => encodeURI(p as string));
    history.replaceState(null, "", parts.join("/"));
  }

  function select(name: string | null): void {
    selected = name;
    setUrl();
    for (const row of list.querySelectorAll<HTMLElement>("tr[data-type]")) {
      row.setAttribute("aria-selected", String(row.dataset.type === name));
    }
    closeDetail?.();
    closeDetail = null;
    const summary = rows.find((r) => r.type.name === name);
    if (!summary) {
      replace(detail, h("p", { class: "muted empty-state" }, "Choose a finding type to see its principals, what it is and how to fix it."));
      return;
    }
    closeDetail = findingDetail(detail, environment, summary, context.self);
  }

  function table(): HTMLElement {
    return h("table", { class: "data-table finding-types" },
      h("caption", { class: "sr-only" }, "Finding types, what to fix first at the top"),
      h("thead", null, h("tr", null, ["Finding", "Exposure", "Impacted", "Findings", "Trend"].map((c) => h("th", { scope: "col" }, c)))),
      SEVERITIES.map((severity) => {
        const group = rows.filter((r) => r.severity === severity);
        if (!group.length) return null;
        return h("tbody", { "data-severity": severity },
          h("tr", { class: "group-row" }, h("th", { colspan: 5, scope: "colgroup" },
            h("span", { class: `chip severity severity-${severity}` }, severity), ` ${group.length} type(s)`)),
          group.map((r) => h("tr", { "data-type": r.type.name, "aria-selected": String(r.type.name === selected) },
            h("td", null, h("button", { class: "link finding-name", onclick: () => select(r.type.name) }, r.type.title)),
            h("td", { class: "num" }, `${r.exposure.toFixed(1)}%`),
            h("td", { class: "num" }, r.impacted),
            h("td", { class: "num" }, r.findings, " ", h("span", { class: "muted delta", title: "Change since the previous analysis" }, delta(r))),
            h("td", null, sparkline(`${r.type.title}: findings over time`, r.trend.findings)))));
      }));
  }

  async function refreshAnalysis(): Promise<void> {
    try {
      await api("PUT", "/attack-paths");
      toast("Analysis requested: the findings are recomputed when it ends.");
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  async function load(): Promise<void> {
    replace(list, h("p", { class: "muted" }, "Loading…"));
    try {
      const [known, counts] = await Promise.all([findingTypes(), riskCounts(environment, days)]);
      const summary = summarise(counts, known);
      rows = summary.rows;
      if (!summary.at) {
        replace(list, h("p", { class: "muted empty-state" }, `No analysis of this environment in the last ${days} days: `
          + "findings are computed at the end of every analysis, which follows each upload (Administration → File Ingest)."));
      } else if (!rows.length) {
        replace(list, h("p", { class: "muted empty-state" }, `The analysis of ${formatDate(summary.at)} found nothing to fix here.`));
      } else {
        replace(list, h("p", { class: "muted", id: "finding-analysis" }, `Analysis of ${formatDate(summary.at)}: ${rows.length} finding type(s).`), table());
      }
      select(rows.some((r) => r.type.name === selected) ? selected : rows[0]?.type.name ?? null);
    } catch (error) {
      replace(list, h("p", { class: "form-error", role: "alert" }, (error as Error).message));
    }
  }

  replace(root, h("div", { class: "page attack-paths" },
    h("h1", null, "Attack Paths"), header,
    h("div", { class: "split" }, list, detail)));

  void (async () => {
    try {
      const environments = await listEnvironments();
      if (!environments.length) {
        replace(list, h("p", { class: "muted empty-state" }, "No domain or tenant collected yet: upload SharpHound or AzureHound files under Administration → File Ingest, or set up a collector under Collection."));
        return;
      }
      if (!environments.some((e) => e.id === environment)) environment = environments[0].id;
      const windowSelect = h("select", { id: "finding-window", onchange: () => { days = Number(windowSelect.value); void load(); } },
        WINDOWS.map((w) => h("option", { value: w.days }, w.label)));
      replace(header,
        environmentSelect("finding-environment", environments, environment, (value) => { environment = value; selected = null; setUrl(); void load(); }),
        h("div", { class: "field-inline" }, h("label", { for: "finding-window" }, "Trend over"), windowSelect),
        hasPermission(context.self, "graphdb", "Write")
          ? h("button", { id: "finding-refresh", onclick: () => void refreshAnalysis() }, "Run analysis") : null);
      setUrl();
      await load();
    } catch (error) {
      replace(list, h("p", { class: "form-error", role: "alert" }, (error as Error).message));
    }
  })();
  return () => closeDetail?.();
}
