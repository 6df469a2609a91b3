// Collection jobs, newest first: state, client, times; per-domain results, the job's files and its log on
// demand; cancel a job that has not ended.
import { api, get, hasPermission } from "../api";
import { formatDate, h, latestOnly, replace, toast } from "../dom";
import type { AppContext } from "../main";
import { CANCELLABLE, JOB_STATUS, listClients, never, type Job } from "./model";

const PAGE_SIZE = 25;
const COUNTS: [keyof Job["domain_results"][number], string][] = [["user_count", "Users"], ["group_count", "Groups"],
  ["computer_count", "Computers"], ["gpo_count", "GPOs"], ["ou_count", "OUs"], ["container_count", "Containers"],
  ["deleted_count", "Deleted"]];

function results(job: Job): HTMLElement {
  if (!job.domain_results.length) return h("p", { class: "muted" }, "No domain result yet: they come with the job's files once it is ingested.");
  return h("table", { class: "data-table domain-results" },
    h("thead", null, h("tr", null, ["Domain", "Result", ...COUNTS.map(([, label]) => label)].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", null, job.domain_results.map((r) => h("tr", null,
      h("td", null, r.domain_name), h("td", null, r.success ? "Collected" : `Failed: ${r.message}`),
      COUNTS.map(([key]) => h("td", { class: "num" }, String(r[key])))))));
}

interface JobFile {
  file_name: string;
  parent_file_name: string;
  state: string;
  errors: string[];
  warnings: string[];
  nodes_written: number;
  edges_written: number;
}

/** The files the client uploaded into the job: its upload job starts at the very moment the job does. */
async function jobFiles(job: Job): Promise<HTMLElement> {
  if (never(job.start_time)) return h("p", { class: "muted" }, "No file: the job has not started.");
  const uploads = (await get<{ data: { id: number }[] }>(`/file-upload?start_time=eq:${encodeURIComponent(job.start_time)}&limit=1`)).data;
  if (!uploads.length) return h("p", { class: "muted" }, "No file.");
  const files = (await get<{ data: JobFile[] }>(`/file-upload/${uploads[0].id}/completed-tasks`)).data;
  if (!files.length) return h("p", { class: "muted" }, "No file ingested yet.");
  return h("table", { class: "data-table job-files" },
    h("thead", null, h("tr", null, ["File", "State", "Nodes", "Edges", "Errors and warnings"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", null, files.map((f) => h("tr", null,
      h("td", null, f.parent_file_name ? `${f.parent_file_name} › ${f.file_name}` : f.file_name), h("td", null, f.state),
      h("td", { class: "num" }, String(f.nodes_written)), h("td", { class: "num" }, String(f.edges_written)),
      h("td", null, [...f.errors, ...f.warnings].join("; ") || "—")))));
}

export function jobsSection(root: HTMLElement, context: AppContext): void {
  const task = hasPermission(context.self, "clients", "Tasking");
  const list = h("div", { id: "jobs-table", class: "table-scroll" });
  const pages = h("nav", { class: "pager", "aria-label": "Pages" });
  const status = h("select", { id: "jobs-status", onchange: () => { skip = 0; void refresh(); } },
    h("option", { value: "" }, "Any state"), Object.entries(JOB_STATUS).map(([value, label]) => h("option", { value }, label)));
  const client = h("select", { id: "jobs-client", onchange: () => { skip = 0; void refresh(); } }, h("option", { value: "" }, "Any client"));
  let skip = 0;
  // A filter changed while the first page loaded: only the newest answer draws, and the list is busy until it has.
  const refreshes = latestOnly();

  async function refresh(): Promise<void> {
    const current = refreshes();
    list.setAttribute("aria-busy", "true");
    try {
      const filters = [status.value ? `&status=eq:${status.value}` : "", client.value ? `&client_id=eq:${client.value}` : ""].join("");
      // One more than a page tells whether there is a next one (the list has no count).
      const jobs = (await get<{ data: Job[] }>(`/jobs?sort_by=-id&skip=${skip}&limit=${PAGE_SIZE + 1}&hydrate_domains=false&hydrate_ous=false${filters}`)).data;
      if (!current()) return;
      const page = jobs.slice(0, PAGE_SIZE);
      replace(list, page.length ? h("table", { class: "data-table" },
        h("thead", null, h("tr", null, ["Job", "Client", "State", "Due", "Started", "Ended", "Domains", ""].map((c) => h("th", { scope: "col" }, c)))),
        page.map((job) => jobRows(job))) :
        h("p", { class: "muted empty-state" }, skip || filters ? "No job matches." : "No job yet: jobs come from schedules and from Collect now on a client."));
      replace(pages,
        h("button", { class: "small", disabled: skip === 0, onclick: () => { skip = Math.max(0, skip - PAGE_SIZE); void refresh(); } }, "Previous"),
        h("span", { class: "muted" }, page.length ? `${skip + 1}–${skip + page.length}` : ""),
        h("button", { class: "small", disabled: jobs.length <= PAGE_SIZE, onclick: () => { skip += PAGE_SIZE; void refresh(); } }, "Next"));
    } catch (error) {
      if (current()) replace(list, h("p", { class: "form-error", role: "alert" }, (error as Error).message));
    } finally {
      if (current()) list.setAttribute("aria-busy", "false");
    }
  }

  function jobRows(job: Job): HTMLElement {
    const detail = h("td", { colspan: 8 });
    const detailRow = h("tr", { class: "hidden job-detail", "data-detail": job.id }, detail);
    const toggle = h("button", { class: "small", "aria-expanded": "false", onclick: () => void show() }, "Details");
    async function show(): Promise<void> {
      const open = detailRow.classList.toggle("hidden") === false;
      toggle.setAttribute("aria-expanded", String(open));
      if (!open) return;
      replace(detail, results(job), h("p", { class: "muted" }, "Loading the files and the log…"));
      try {
        const [files, log] = await Promise.all([jobFiles(job), get<{ data: { log: string } }>(`/jobs/${job.id}/log`)]);
        replace(detail, results(job), h("h3", null, "Files"), files,
          h("h3", null, "Log"), h("pre", { class: "job-log" }, log.data.log || "(empty)"));
      } catch (error) {
        replace(detail, results(job), h("p", { class: "form-error" }, (error as Error).message));
      }
    }
    return h("tbody", { "data-job": job.id },
      h("tr", null,
        h("td", null, `#${job.id}`), h("td", null, job.client_name),
        h("td", null, h("span", { class: `chip status-${job.status}`, "data-status": JOB_STATUS[job.status] }, JOB_STATUS[job.status] ?? String(job.status)),
          job.status_message ? h("div", { class: "muted" }, job.status_message) : null),
        h("td", null, formatDate(job.execution_time)), h("td", null, never(job.start_time) ? "—" : formatDate(job.start_time)),
        h("td", null, never(job.end_time) ? "—" : formatDate(job.end_time)),
        h("td", null, job.domain_results.map((r) => r.domain_name).join(", ") || "—"),
        h("td", { class: "row-actions" }, toggle,
          task && CANCELLABLE.has(job.status) ? h("button", { class: "small danger", onclick: () => void cancel(job) }, "Cancel") : null)),
      detailRow);
  }

  async function cancel(job: Job): Promise<void> {
    try {
      await api("PUT", `/jobs/${job.id}/cancel`);
      toast(`Job #${job.id} canceled.`);
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  replace(root,
    h("div", { class: "row page-controls" }, h("h2", null, "Jobs"),
      h("div", { class: "field-inline" }, h("label", { for: "jobs-status" }, "State"), status),
      h("div", { class: "field-inline" }, h("label", { for: "jobs-client" }, "Client"), client)),
    list, pages);
  // The list first: waiting for the clients before it would let a filter chosen meanwhile be redrawn over
  // (closing a job's details opened on the first drawing).
  void refresh();
  void (async () => {
    try {
      for (const c of await listClients()) client.append(h("option", { value: c.id }, c.name));
    } catch {
      // the list still shows every client's jobs
    }
  })();
}
