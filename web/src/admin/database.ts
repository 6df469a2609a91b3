// Database management: clear all graph data, or only the data of chosen source kinds (Active Directory, Azure,
// an OpenGraph collector's own, nodes of none) or only the session edges, and histories, after a typed
// confirmation. The source kinds come from `GET /api/v2/graphs/source-kinds`, the ids clear-database takes.
import { api, get } from "../api";
import { h, modal, replace, toast } from "../dom";

const CONFIRMATION = "Please delete my data";
const SOURCE_LABELS: Record<string, string> = {
  Base: "Active Directory data (Base)",
  AZBase: "Azure data (AZBase)",
  Sourceless: "Nodes of no source kind",
};

interface SourceKind {
  id: number;
  name: string;
}

type Choice = { label: string; box: HTMLInputElement };

export function databaseSection(root: HTMLElement): void {
  const choice = (id: string, label: string): Choice => ({ label, box: h("input", { type: "checkbox", id }) });
  const allGraph = choice("clear-deleteCollectedGraphData", "All collected graph data (every node and edge)");
  const sessions = choice("clear-sessions", "Session edges only (HasSession)");
  const fileHistory = choice("clear-deleteFileIngestHistory", "File ingest history");
  const qualityHistory = choice("clear-deleteDataQualityHistory", "Data quality history");
  let sources: (Choice & { id: number })[] = [];
  const sourceList = h("div", { class: "source-kinds", id: "source-kinds" }, h("p", { class: "muted" }, "Loading the source kinds…"));

  // The API takes either all graph data or a choice of source kinds, never both.
  function exclusive(): void {
    for (const source of sources) {
      source.box.disabled = allGraph.box.checked;
      if (allGraph.box.checked) source.box.checked = false;
    }
  }
  allGraph.box.addEventListener("change", exclusive);

  async function loadSources(): Promise<void> {
    try {
      const kinds = (await get<{ data: { kinds: SourceKind[] } }>("/graphs/source-kinds")).data.kinds;
      sources = kinds.map((kind) => ({ ...choice(`clear-source-${kind.id}`, SOURCE_LABELS[kind.name] ?? `${kind.name} data`),
        id: kind.id }));
      sources.forEach((source, i) => source.box.setAttribute("data-source-kind", kinds[i].name));
      replace(sourceList, sources.map((s) => h("label", { class: "check" }, s.box, s.label)));
      exclusive();
    } catch (error) {
      replace(sourceList, h("p", { class: "form-error", role: "alert" }, `Could not list the source kinds: ${(error as Error).message}`));
    }
  }

  async function clear(): Promise<void> {
    const chosenSources = sources.filter((s) => s.box.checked);
    const chosen = [allGraph, ...chosenSources, sessions, fileHistory, qualityHistory].filter((c) => c.box.checked);
    if (!chosen.length) {
      toast("Choose what to delete.", "error");
      return;
    }
    const typed = h("input", { id: "clear-confirm", autocomplete: "off" });
    const answer = await modal("Delete data", [
      h("p", null, "This deletes: ", chosen.map((c) => c.label).join(", "), ". It cannot be undone."),
      h("label", { for: "clear-confirm" }, `Type “${CONFIRMATION}” to confirm`), typed,
    ], [{ label: "Cancel", value: "cancel" }, { label: "Delete", value: "ok", danger: true }]);
    if (answer !== "ok") return;
    if (typed.value !== CONFIRMATION) {
      toast("The confirmation text does not match; nothing was deleted.", "error");
      return;
    }
    try {
      await api("POST", "/clear-database", {
        deleteCollectedGraphData: allGraph.box.checked,
        deleteSourceKinds: chosenSources.map((s) => s.id),
        deleteRelationships: sessions.box.checked ? ["HasSession"] : [],
        deleteFileIngestHistory: fileHistory.box.checked,
        deleteDataQualityHistory: qualityHistory.box.checked,
      });
      toast("Deletion requested: the datapipe clears the data shortly.");
      chosen.forEach((c) => (c.box.checked = false));
      exclusive();
      await loadSources();
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  const check = (c: Choice) => h("label", { class: "check" }, c.box, c.label);
  replace(root, h("div", { class: "card" },
    h("h2", null, "Clear data"),
    h("p", { class: "muted" }, "Delete collected data from this instance. Users, configuration and saved queries stay."),
    h("fieldset", { class: "filter-group" }, h("legend", null, "Graph data"),
      check(allGraph),
      h("p", { class: "muted" }, "Or only the data of these sources:"),
      sourceList,
      check(sessions)),
    h("fieldset", { class: "filter-group" }, h("legend", null, "Histories"), check(fileHistory), check(qualityHistory)),
    h("div", { class: "row" }, h("button", { class: "danger", id: "clear-database", onclick: () => void clear() }, "Delete data"))));
  void loadSources();
}
