// The Cypher tab: the editor, the pre-built searches (grouped as the reference groups them) and the user's
// saved queries (save, rename, share, delete, import, export).
import { api, ApiError, get, request } from "../api";
import { download, h, modal, replace, toast } from "../dom";
import PREBUILT from "../data/prebuilt.json";
import { cypherEditor } from "./highlight";

interface SavedQuery {
  id: number;
  user_id: string;
  name: string;
  query: string;
  description: string;
  scope?: string;
  updated_at: string;
}

export function cypherTab(run: (query: string) => Promise<void>, selfId: string): { element: HTMLElement; load: (query: string) => void } {
  const status = h("p", { class: "muted", role: "status", id: "cypher-status" });
  const editor = cypherEditor("cypher-query", () => void execute());
  // Busy until its first answer is drawn: the list then takes its height, moving what lies below it.
  const savedList = h("div", { id: "saved-queries", "aria-busy": "true" });

  async function execute(): Promise<void> {
    const query = editor.textarea.value.trim();
    if (!query) return;
    status.textContent = "Running…";
    try {
      await run(query);
      status.textContent = "";
    } catch (error) {
      status.textContent = error instanceof ApiError && error.status === 404 ? "No results." : (error as Error).message;
    }
  }

  async function refreshSaved(): Promise<void> {
    let queries: SavedQuery[] = [];
    try {
      queries = (await get<{ data: SavedQuery[] }>("/saved-queries?scope=owned,shared,public&sort_by=name&limit=1000")).data;
    } catch (error) {
      replace(savedList, h("p", { class: "form-error" }, (error as Error).message));
      return;
    }
    const seen = new Set<number>();
    queries = queries.filter((q) => !seen.has(q.id) && seen.add(q.id));
    replace(savedList, queries.length ? h("ul", { class: "query-list" }, queries.map((q) => {
      const mine = q.user_id === selfId;
      return h("li", { class: "saved-query", "data-name": q.name },
        h("button", {
          class: "link query-name", title: q.description || q.query,
          onclick: () => {
            editor.textarea.value = q.query;
            void execute();
          },
        }, q.name),
        q.scope && q.scope !== "owned" ? h("span", { class: "chip" }, q.scope) : null,
        h("span", { class: "query-actions" },
          mine && h("button", { class: "small", "aria-label": `Rename ${q.name}`, onclick: () => void rename(q) }, "Rename"),
          mine && h("button", { class: "small", "aria-label": `Share ${q.name}`, onclick: () => void share(q) }, "Share"),
          h("button", { class: "small", "aria-label": `Export ${q.name}`, onclick: () => void exportOne(q) }, "Export"),
          mine && h("button", { class: "small danger", "aria-label": `Delete ${q.name}`, onclick: () => void remove(q) }, "Delete")));
    })) : h("p", { class: "muted" }, "No saved queries yet."));
  }

  async function save(): Promise<void> {
    const query = editor.textarea.value.trim();
    if (!query) {
      toast("Write a query first.", "error");
      return;
    }
    const name = h("input", { id: "save-query-name", required: true });
    const description = h("input", { id: "save-query-description" });
    const answer = await modal("Save query", [
      h("label", { for: "save-query-name" }, "Name"), name,
      h("label", { for: "save-query-description" }, "Description"), description,
    ], [{ label: "Cancel", value: "cancel" }, { label: "Save", value: "save", primary: true }]);
    if (answer !== "save" || !name.value.trim()) return;
    try {
      await api("POST", "/saved-queries", { name: name.value.trim(), query, description: description.value });
      toast(`Saved “${name.value.trim()}”.`);
      await refreshSaved();
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  async function rename(q: SavedQuery): Promise<void> {
    const name = h("input", { id: "rename-query", value: q.name });
    if ((await modal("Rename query", [h("label", { for: "rename-query" }, "Name"), name],
      [{ label: "Cancel", value: "cancel" }, { label: "Rename", value: "ok", primary: true }])) !== "ok") return;
    try {
      await api("PUT", `/saved-queries/${q.id}`, { name: name.value.trim() });
      await refreshSaved();
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  async function share(q: SavedQuery): Promise<void> {
    let users: { id: string; first_name: { string: string }; last_name: { string: string }; email: string }[] = [];
    try {
      users = (await get<{ data: { users: typeof users } }>("/bloodhound-users-minimal")).data.users ?? [];
    } catch {
      users = [];
    }
    const publicBox = h("input", { type: "checkbox", id: "share-public" });
    const boxes = users.filter((u) => u.id !== selfId).map((u) => ({ user: u, box: h("input", { type: "checkbox", id: `share-${u.id}` }) }));
    const answer = await modal(`Share “${q.name}”`, [
      h("label", { class: "check" }, publicBox, "Public: every user can see and run it"),
      boxes.length ? h("fieldset", null, h("legend", null, "Share with users"),
        boxes.map(({ user, box }) => h("label", { class: "check" }, box,
          `${user.first_name?.string ?? ""} ${user.last_name?.string ?? ""}`.trim() || user.email || user.id))) : null,
    ], [{ label: "Cancel", value: "cancel" }, { label: "Share", value: "ok", primary: true }]);
    if (answer !== "ok") return;
    try {
      await api("PUT", `/saved-queries/${q.id}/permissions`, {
        public: publicBox.checked, user_ids: boxes.filter((b) => b.box.checked).map((b) => b.user.id),
      });
      toast("Sharing updated.");
      await refreshSaved();
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  async function remove(q: SavedQuery): Promise<void> {
    if ((await modal("Delete query", `Delete “${q.name}”?`, [{ label: "Cancel", value: "cancel" },
      { label: "Delete", value: "ok", danger: true }])) !== "ok") return;
    try {
      await api("DELETE", `/saved-queries/${q.id}`);
      await refreshSaved();
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  async function exportOne(q: SavedQuery): Promise<void> {
    const response = await request("GET", `/saved-queries/${q.id}/export`);
    download(`${q.name.replace(/[^A-Za-z0-9_-]+/g, "_")}.json`, await response.blob());
  }

  async function exportAll(): Promise<void> {
    try {
      const response = await request("GET", "/saved-queries/export?scope=owned");
      download("saved-queries.zip", await response.blob());
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  const importInput = h("input", {
    type: "file", accept: ".json,.zip,application/json,application/zip", class: "hidden", id: "import-queries",
    onchange: async () => {
      const file = importInput.files?.[0];
      if (!file) return;
      const type = file.name.endsWith(".zip") ? "application/zip" : "application/json";
      try {
        await api("POST", "/saved-queries/import", new Blob([await file.arrayBuffer()], { type }), { headers: { "Content-Type": type } });
        toast(`Imported ${file.name}.`);
        await refreshSaved();
      } catch (error) {
        toast((error as Error).message, "error");
      }
      importInput.value = "";
    },
  });

  const prebuilt = h("div", { id: "prebuilt-queries" }, (PREBUILT as { category: string; queries: { name: string; query: string }[] }[]).map((group) =>
    h("details", { class: "query-group" }, h("summary", null, group.category),
      h("ul", { class: "query-list" }, group.queries.map((q) => h("li", null, h("button", {
        class: "link query-name", title: q.query,
        onclick: () => {
          editor.textarea.value = q.query;
          void execute();
        },
      }, q.name)))))));

  void refreshSaved().finally(() => savedList.setAttribute("aria-busy", "false"));
  const element = h("div", { class: "cypher-tab" },
    editor.element,
    h("div", { class: "row" },
      h("button", { class: "primary", id: "cypher-run", onclick: () => void execute() }, "Run"),
      h("button", { id: "cypher-save", onclick: () => void save() }, "Save query"),
      h("span", { class: "muted hint" }, "Ctrl+Enter runs")),
    status,
    h("details", { class: "query-group", open: true }, h("summary", null, "Saved queries"),
      h("div", { class: "row" },
        h("button", { class: "small", onclick: () => importInput.click() }, "Import"),
        h("button", { class: "small", onclick: () => void exportAll() }, "Export all"), importInput),
      savedList),
    h("h3", { class: "section-title" }, "Pre-built searches"),
    prebuilt);
  return {
    element,
    /** Puts `query` in the editor and runs it (the entity panel's "show the Cypher"). */
    load(query: string): void {
      editor.textarea.value = query;
      editor.textarea.dispatchEvent(new Event("input"));
      void execute();
    },
  };
}

