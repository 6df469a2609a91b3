// Schedules (the API's events): a client collects on a recurrence rule. Create with the recurrence editor
// and its preview of the next runs; delete.
import { api, get, hasPermission } from "../api";
import { formatDate, h, modal, replace, toast } from "../dom";
import type { AppContext } from "../main";
import { pager } from "../pager";
import { COLLECTION_OPTIONS, listClients, type Schedule } from "./model";
import { optionBoxes } from "./options";
import { describe, recurrenceEditor } from "./recurrence";

const PAGE_SIZE = 25;

export function schedulesSection(root: HTMLElement, context: AppContext): void {
  const manage = hasPermission(context.self, "clients", "Manage");
  const list = h("div", { id: "schedules-table", class: "table-scroll" });
  const pages = h("div");
  let skip = 0;

  async function refresh(): Promise<void> {
    try {
      const [body, clients] = await Promise.all([
        get<{ count: number; data: Schedule[] }>(`/events?skip=${skip}&limit=${PAGE_SIZE}&sort_by=id&hydrate_domains=false&hydrate_ous=false`),
        listClients(),
      ]);
      const names = new Map(clients.map((c) => [c.id, c.name]));
      replace(list, body.data.length ? h("table", { class: "data-table" },
        h("thead", null, h("tr", null, ["Client", "Recurrence", "Next run", "Collects", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", null, body.data.map((s) => h("tr", { "data-schedule": s.id },
          h("td", null, names.get(s.client_id) ?? s.client_id),
          h("td", { title: s.rrule }, describe(s.rrule)),
          h("td", null, formatDate(s.next_scheduled_at)),
          h("td", null, COLLECTION_OPTIONS.filter((o) => (s as unknown as Record<string, unknown>)[o.flag]).map((o) => o.label).join(", ") || "—"),
          h("td", null, manage ? h("button", { class: "small danger", onclick: () => void remove(s) }, "Delete") : null))))) :
        h("p", { class: "muted empty-state" }, clients.length
          ? "No schedule yet: create one to have a client collect on a recurrence."
          : "No schedule yet, and no client to run one: create a client under Collection → Clients first."));
      replace(pages, pager(body.count, skip, PAGE_SIZE, (next) => { skip = next; void refresh(); }, "schedules"));
    } catch (error) {
      replace(list, h("p", { class: "form-error", role: "alert" }, (error as Error).message));
    }
  }

  async function create(): Promise<void> {
    let clients;
    try {
      clients = await listClients();
    } catch (error) {
      toast((error as Error).message, "error");
      return;
    }
    if (!clients.length) {
      toast("Create a client first: a schedule belongs to one.", "error");
      return;
    }
    const client = h("select", { id: "schedule-client" }, clients.map((c) => h("option", { value: c.id }, c.name)));
    const editor = recurrenceEditor();
    const options = optionBoxes("schedule");
    if (await modal("Create schedule", [
      h("label", { for: "schedule-client" }, "Client"), client, editor.element, options.element,
    ], [{ label: "Cancel", value: "cancel" }, { label: "Create", value: "ok", primary: true }]) !== "ok") return;
    try {
      await api("POST", "/events", { client_id: client.value, rrule: editor.rule(), ...options.values() });
      toast("Schedule created.");
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  async function remove(schedule: Schedule): Promise<void> {
    if (await modal("Delete schedule", "Delete this schedule? Jobs it already queued stay.",
      [{ label: "Cancel", value: "cancel" }, { label: "Delete", value: "ok", danger: true }]) !== "ok") return;
    try {
      await api("DELETE", `/events/${schedule.id}`);
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  replace(root,
    h("div", { class: "row" }, h("h2", null, "Schedules"),
      manage ? h("button", { class: "primary", id: "create-schedule", onclick: () => void create() }, "Create schedule") : null),
    list, pages);
  void refresh();
}
