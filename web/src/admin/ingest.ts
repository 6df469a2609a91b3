// File ingest: upload collector files (JSON or zip) with progress, then the job history with per-file results.
import { api, get, upload } from "../api";
import { formatDate, h, replace, toast } from "../dom";

interface UploadJob {
  id: number;
  status: number;
  status_message: string;
  start_time: string;
  end_time: string;
  total_files: number;
  failed_files: number;
  completed_files: number;
  nodes_written?: number;
  edges_written?: number;
  user_email_address: string;
}

const STATUS: Record<number, string> = {
  [-1]: "Invalid", 0: "Ready", 1: "Running", 2: "Complete", 3: "Canceled", 4: "Timed out", 5: "Failed",
  6: "Ingesting", 7: "Analyzing", 8: "Partially complete",
};
const FINISHED = new Set([-1, 2, 3, 4, 5, 8]);

export function ingestSection(root: HTMLElement): () => void {
  const fileInput = h("input", { type: "file", id: "upload-files", multiple: true, accept: ".json,.zip,application/json,application/zip" });
  const progress = h("progress", { id: "upload-progress", max: 100, value: 0, class: "hidden" });
  const status = h("p", { class: "muted", role: "status", id: "upload-status" });
  const jobs = h("div", { id: "upload-jobs" });
  let timer: number | undefined;

  async function send(): Promise<void> {
    const files = [...(fileInput.files ?? [])];
    if (!files.length) {
      toast("Choose one or more files first.", "error");
      return;
    }
    progress.classList.remove("hidden");
    try {
      const job = (await api<{ data: { id: number } }>("POST", "/file-upload/start")).data;
      const total = files.reduce((sum, f) => sum + f.size, 0) || 1;
      let done = 0;
      for (const file of files) {
        status.textContent = `Uploading ${file.name}…`;
        const type = file.name.toLowerCase().endsWith(".zip") ? "application/zip" : "application/json";
        await upload(`/file-upload/${job.id}`, file, type, (fraction) => {
          progress.value = Math.round(((done + fraction * file.size) / total) * 100);
        });
        done += file.size;
      }
      await api("POST", `/file-upload/${job.id}/end`);
      progress.value = 100;
      status.textContent = `Uploaded ${files.length} file(s); job ${job.id} is being ingested.`;
      fileInput.value = "";
      void refresh();
    } catch (error) {
      status.textContent = `Upload failed: ${(error as Error).message}`;
    }
  }

  async function showTasks(job: UploadJob, cell: HTMLElement): Promise<void> {
    const tasks = (await get<{ data: { file_name: string; parent_file_name?: string; state?: string; errors: string[]; warnings: string[] }[] }>(
      `/file-upload/${job.id}/completed-tasks`)).data ?? [];
    replace(cell, tasks.length ? h("ul", { class: "task-list" }, tasks.map((t) => h("li", null,
      h("strong", null, t.file_name), ` — ${t.state ?? ""}`,
      t.errors?.length ? h("span", { class: "form-error" }, ` errors: ${t.errors.join("; ")}`) : null,
      t.warnings?.length ? h("span", { class: "muted" }, ` warnings: ${t.warnings.join("; ")}`) : null))) : "No files yet.");
  }

  async function refresh(): Promise<void> {
    window.clearTimeout(timer);
    let list: UploadJob[] = [];
    try {
      list = (await get<{ data: UploadJob[] }>("/file-upload?skip=0&limit=20&sort_by=-id")).data;
    } catch (error) {
      replace(jobs, h("p", { class: "form-error" }, (error as Error).message));
      return;
    }
    replace(jobs, h("table", { class: "data-table" },
      h("thead", null, h("tr", null, ["Job", "Status", "Files", "Nodes", "Edges", "Started", "Ended", "Files ingested"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", null, list.map((job) => {
        const detail = h("td");
        const row = h("tr", { "data-job": job.id },
          h("td", null, `#${job.id}`),
          h("td", null, h("span", { class: `chip status-${job.status}`, "data-status": STATUS[job.status] ?? String(job.status) },
            STATUS[job.status] ?? String(job.status)), job.status_message ? h("div", { class: "muted" }, job.status_message) : null),
          h("td", null, `${job.completed_files}/${job.total_files}${job.failed_files ? ` (${job.failed_files} failed)` : ""}`),
          h("td", null, String(job.nodes_written ?? "—")),
          h("td", null, String(job.edges_written ?? "—")),
          h("td", null, formatDate(job.start_time)),
          h("td", null, formatDate(job.end_time)),
          detail);
        detail.append(h("button", { class: "small", onclick: () => void showTasks(job, detail) }, "Show"));
        return row;
      }))));
    if (list.some((job) => !FINISHED.has(job.status))) timer = window.setTimeout(() => void refresh(), 1500);
  }

  replace(root,
    h("div", { class: "card" },
      h("h2", null, "Upload files"),
      h("p", { class: "muted" }, "SharpHound or AzureHound JSON files, OpenGraph JSON, or a zip of them."),
      h("label", { for: "upload-files" }, "Files"), fileInput,
      h("div", { class: "row" }, h("button", { class: "primary", id: "upload-submit", onclick: () => void send() }, "Upload")),
      progress, status),
    h("div", { class: "card" }, h("div", { class: "row" }, h("h2", null, "Job history"),
      h("button", { class: "small", onclick: () => void refresh() }, "Refresh")), jobs));
  void refresh();
  return () => window.clearTimeout(timer);
}
