// Database management: clear graph data and histories, after a typed confirmation.
import { api } from "../api";
import { h, modal, replace, toast } from "../dom";

const CONFIRMATION = "Please delete my data";

export function databaseSection(root: HTMLElement): void {
  const options = [
    { key: "deleteCollectedGraphData", label: "Collected graph data (all nodes and edges)" },
    { key: "deleteFileIngestHistory", label: "File ingest history" },
    { key: "deleteDataQualityHistory", label: "Data quality history" },
  ].map((o) => ({ ...o, box: h("input", { type: "checkbox", id: `clear-${o.key}` }) }));

  async function clear(): Promise<void> {
    const chosen = options.filter((o) => o.box.checked);
    if (!chosen.length) {
      toast("Choose what to delete.", "error");
      return;
    }
    const typed = h("input", { id: "clear-confirm", autocomplete: "off" });
    const answer = await modal("Delete data", [
      h("p", null, "This deletes: ", chosen.map((o) => o.label).join(", "), ". It cannot be undone."),
      h("label", { for: "clear-confirm" }, `Type “${CONFIRMATION}” to confirm`), typed,
    ], [{ label: "Cancel", value: "cancel" }, { label: "Delete", value: "ok", danger: true }]);
    if (answer !== "ok") return;
    if (typed.value !== CONFIRMATION) {
      toast("The confirmation text does not match; nothing was deleted.", "error");
      return;
    }
    try {
      await api("POST", "/clear-database", Object.fromEntries(options.map((o) => [o.key, o.box.checked])));
      toast("Deletion requested: the datapipe clears the data shortly.");
      options.forEach((o) => (o.box.checked = false));
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  replace(root, h("div", { class: "card" },
    h("h2", null, "Clear data"),
    h("p", { class: "muted" }, "Delete collected data from this instance. Users, configuration and saved queries stay."),
    options.map((o) => h("label", { class: "check" }, o.box, o.label)),
    h("div", { class: "row" }, h("button", { class: "danger", id: "clear-database", onclick: () => void clear() }, "Delete data"))));
}
