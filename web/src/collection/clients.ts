// Collection clients: status, last check-in, version, current job; create one (its token shown once),
// collect now, delete.
import { api, hasPermission } from "../api";
import { formatDate, h, modal, replace, toast } from "../dom";
import type { AppContext } from "../main";
import { CLIENT_TYPES, JOB_STATUS, listClients, never, type Client } from "./model";
import { optionBoxes } from "./options";

function status(client: Client): HTMLElement {
  if (client.current_job_id !== null) {
    const state = client.current_job ? JOB_STATUS[client.current_job.status] : "Has";
    return h("span", { class: "chip status-1" }, `${state} job #${client.current_job_id}`);
  }
  if (never(client.last_checkin)) return h("span", { class: "chip" }, "Never checked in");
  return h("span", { class: "chip status-2" }, "Idle");
}

export function clientsSection(root: HTMLElement, context: AppContext): void {
  const manage = hasPermission(context.self, "clients", "Manage");
  const task = hasPermission(context.self, "clients", "Tasking");
  const list = h("div", { id: "clients-table", class: "table-scroll" });

  async function refresh(): Promise<void> {
    try {
      const clients = await listClients();
      replace(list, clients.length ? h("table", { class: "data-table" },
        h("thead", null, h("tr", null, ["Name", "Type", "Status", "Last check-in", "Version", "Host", "Completed jobs", ""]
          .map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", null, clients.map((c) => h("tr", { "data-client": c.name },
          h("td", null, c.name), h("td", null, CLIENT_TYPES.find((t) => t.value === c.type)?.label ?? c.type),
          h("td", null, status(c)), h("td", null, never(c.last_checkin) ? "—" : formatDate(c.last_checkin)),
          h("td", null, c.version || "—"), h("td", null, c.hostname || "—"), h("td", { class: "num" }, c.completed_job_count),
          h("td", { class: "row-actions" },
            task ? h("button", { class: "small", onclick: () => void collectNow(c) }, "Collect now") : null,
            manage ? h("button", { class: "small danger", "aria-label": `Delete client ${c.name}`, onclick: () => void remove(c) }, "Delete") : null))))) :
        h("p", { class: "muted empty-state" }, "No collection client yet. Create one, then give its token to SharpHound Enterprise or "
          + "AzureHound Enterprise: the collector checks in and runs the jobs its schedules and you give it."));
    } catch (error) {
      replace(list, h("p", { class: "form-error", role: "alert" }, (error as Error).message));
    }
  }

  async function create(): Promise<void> {
    const name = h("input", { id: "client-name", required: true, maxlength: 255 });
    const type = h("select", { id: "client-type" }, CLIENT_TYPES.map((t) => h("option", { value: t.value }, t.label)));
    const controller = h("input", { id: "client-dc", maxlength: 255, placeholder: "dc01.example.local (SharpHound)" });
    if (await modal("Create collection client", [
      h("label", { for: "client-name" }, "Name"), name, h("label", { for: "client-type" }, "Collector"), type,
      h("label", { for: "client-dc" }, "Domain controller"), controller,
    ], [{ label: "Cancel", value: "cancel" }, { label: "Create", value: "ok", primary: true }]) !== "ok") return;
    try {
      const client = (await api<{ data: Client }>("POST", "/clients", {
        name: name.value.trim(), type: type.value, domain_controller: controller.value.trim(),
      })).data;
      await modal("The client's token", [
        h("p", null, "Give these to the collector now: the key is not shown again (replace the token to get a new one)."),
        h("dl", { class: "token-secret" },
          h("dt", null, "Token ID"), h("dd", { class: "mono", id: "new-client-token-id" }, client.token?.id ?? ""),
          h("dt", null, "Token key"), h("dd", { class: "mono", id: "new-client-key" }, client.token?.key ?? "")),
      ], [{ label: "I have copied it", value: "ok", primary: true }]);
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  async function collectNow(client: Client): Promise<void> {
    const options = optionBoxes("job");
    if (await modal(`Collect now with ${client.name}`, [
      h("p", null, "The client picks the job up at its next check-in."), options.element,
    ], [{ label: "Cancel", value: "cancel" }, { label: "Start collection", value: "ok", primary: true }]) !== "ok") return;
    try {
      const job = (await api<{ data: { id: number } }>("POST", `/clients/${client.id}/jobs`, options.values())).data;
      toast(`Job #${job.id} is waiting for ${client.name}.`);
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  async function remove(client: Client): Promise<void> {
    if (await modal("Delete client", `Delete the client “${client.name}”? Its token stops working and its schedules end.`,
      [{ label: "Cancel", value: "cancel" }, { label: "Delete", value: "ok", danger: true }]) !== "ok") return;
    try {
      await api("DELETE", `/clients/${client.id}`);
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  replace(root,
    h("div", { class: "row" }, h("h2", null, "Clients"),
      manage ? h("button", { class: "primary", id: "create-client", onclick: () => void create() }, "Create client") : null),
    list);
  void refresh();
}
