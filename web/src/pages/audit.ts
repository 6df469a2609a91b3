// The audit log: who did what, when, from where and with what outcome; filtered by actor, action, status
// and date, paginated, exported as CSV (every entry matching the filters, not only the page on screen).
import { get } from "../api";
import { debounce, download, formatDate, formatValue, h, latestOnly, replace, toast } from "../dom";
import { pager } from "../pager";
import type { AuditLogView } from "../wire";

type AuditEntry = AuditLogView;

const PAGE_SIZE = 50;
// The most entries one export asks for.
const EXPORT_LIMIT = 10_000;
const CSV_COLUMNS: (keyof AuditEntry)[] = ["id", "created_at", "actor_name", "actor_email", "actor_id", "action", "status",
  "source_ip_address", "request_id", "fields"];

function csvCell(value: unknown): string {
  const text = typeof value === "object" && value !== null ? JSON.stringify(value) : String(value ?? "");
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function auditPage(root: HTMLElement): void {
  const actor = h("input", { id: "audit-actor", type: "search", placeholder: "Name contains…", oninput: debounce(() => { skip = 0; void load(); }, 300) });
  const action = h("input", { id: "audit-action", type: "search", list: "audit-actions", placeholder: "e.g. CreateUser", oninput: debounce(() => { skip = 0; void load(); }, 300) });
  const actions = h("datalist", { id: "audit-actions" });
  const status = h("select", { id: "audit-status", onchange: () => { skip = 0; void load(); } },
    ["", "success", "failure", "intent"].map((s) => h("option", { value: s }, s ? s.charAt(0).toUpperCase() + s.slice(1) : "Any status")));
  const after = h("input", { id: "audit-after", type: "date", onchange: () => { skip = 0; void load(); } });
  const before = h("input", { id: "audit-before", type: "date", onchange: () => { skip = 0; void load(); } });
  const list = h("div", { id: "audit-table", class: "table-scroll" });
  const pages = h("div");
  const seenActions = new Set<string>();
  let skip = 0;

  function query(): string {
    const parts: string[] = [];
    if (actor.value.trim()) parts.push(`actor_name=~eq:${encodeURIComponent(actor.value.trim())}`);
    if (action.value.trim()) parts.push(`action=eq:${encodeURIComponent(action.value.trim())}`);
    if (status.value) parts.push(`status=eq:${status.value}`);
    // Dates are the reader's days: from the start of `after` to the end of `before`.
    if (after.value) parts.push(`after=${encodeURIComponent(new Date(`${after.value}T00:00:00`).toISOString())}`);
    if (before.value) parts.push(`before=${encodeURIComponent(new Date(new Date(`${before.value}T00:00:00`).getTime() + 86_400_000).toISOString())}`);
    else if (after.value) parts.push(`before=${encodeURIComponent(new Date().toISOString())}`);
    return parts.join("&");
  }

  // Each change of a filter starts a load: only the latest one's answer may draw, whatever order they arrive in.
  const loads = latestOnly();

  async function load(): Promise<void> {
    const newest = loads();
    try {
      const body = await get<{ count: number; data: { logs: AuditEntry[] } }>(`/audit?${query()}&skip=${skip}&limit=${PAGE_SIZE}`);
      if (!newest()) return;
      const logs = body.data.logs;
      for (const entry of logs) {
        if (!seenActions.has(entry.action)) actions.append(h("option", { value: entry.action }));
        seenActions.add(entry.action);
      }
      replace(list, logs.length ? h("table", { class: "data-table" },
        h("thead", null, h("tr", null, ["When", "Actor", "Action", "Status", "Source", "Details"].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", null, logs.map((e) => h("tr", { "data-audit": e.id },
          h("td", null, formatDate(e.created_at)),
          h("td", null, e.actor_name || "—", e.actor_email ? h("div", { class: "muted" }, e.actor_email) : null),
          h("td", null, e.action), h("td", null, h("span", { class: `chip audit-${e.status}` }, e.status)),
          h("td", { class: "mono" }, e.source_ip_address || "—"),
          h("td", { class: "audit-fields" }, Object.entries(e.fields ?? {}).map(([k, v]) => h("div", null, h("span", { class: "muted" }, `${k}: `), formatValue(v)))))))) :
        h("p", { class: "muted empty-state" }, "No audit entry matches these filters: widen the dates or clear a filter."));
      replace(pages, pager(body.count, skip, PAGE_SIZE, (next) => { skip = next; void load(); }, "audit"));
    } catch (error) {
      if (newest()) replace(list, h("p", { class: "form-error", role: "alert" }, (error as Error).message));
    }
  }

  async function exportCsv(): Promise<void> {
    try {
      const logs = (await get<{ data: { logs: AuditEntry[] } }>(`/audit?${query()}&skip=0&limit=${EXPORT_LIMIT}`)).data.logs;
      const lines = [CSV_COLUMNS.join(","), ...logs.map((e) => CSV_COLUMNS.map((c) => csvCell(e[c])).join(","))];
      download(`audit-log-${new Date().toISOString().slice(0, 10)}.csv`, new Blob([lines.join("\n") + "\n"], { type: "text/csv" }));
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  replace(root, h("div", { class: "page audit" },
    h("h1", null, "Audit Log"),
    h("div", { class: "row page-controls" },
      h("div", { class: "field-inline" }, h("label", { for: "audit-actor" }, "Actor"), actor),
      h("div", { class: "field-inline" }, h("label", { for: "audit-action" }, "Action"), action, actions),
      h("div", { class: "field-inline" }, h("label", { for: "audit-status" }, "Status"), status),
      h("div", { class: "field-inline" }, h("label", { for: "audit-after" }, "From"), after),
      h("div", { class: "field-inline" }, h("label", { for: "audit-before" }, "To"), before),
      h("button", { id: "audit-export", onclick: () => void exportCsv() }, "Export CSV")),
    list, pages));
  void load();
}
