// The Explore page: search, path finding and Cypher on the left, the graph in the middle, the entity or
// edge panel on the right, a toolbar over the graph and a context menu on nodes.
import { api, hasPermission } from "../api";
import { h, replace, toast } from "../dom";
import { fetchNode, fromApiGraph, literalsToTable, type CypherResult, type GraphData, type GraphNode } from "../graph/model";
import { loadCustomKinds } from "../graph/customKinds";
import { GraphView, type LayoutName } from "../graph/view";
import type { AppContext } from "../main";
import { cypherTab } from "./cypher";
import { renderEdgePanel } from "./edgePanel";
import { renderEntityPanel, type PanelTarget } from "./entityPanel";
import { pathfindingTab } from "./pathfinding";
import { renderResultTable } from "./resultTable";
import { searchBox, type SearchHit } from "./search";
import { zoneActions } from "./zoneActions";

export function explorePage(root: HTMLElement, context: AppContext): () => void {
  const graphHost = h("div", { class: "graph-canvas", id: "graph", "aria-label": "Graph", role: "img" });
  const emptyNote = h("div", { class: "graph-empty", id: "graph-empty" }, "Search for a node, find a path or run a query to draw the graph.");
  const tableHost = h("div", { class: "result-table hidden", id: "result-table" });
  const panelContent = h("div", { class: "panel-scroll" });
  let panelTarget: PanelTarget | null = null;  // the node the panel shows, redrawn when its markers change
  const panel = h("aside", { class: "side-panel right hidden", id: "entity-panel", "aria-label": "Details", tabindex: "-1" },
    h("button", { class: "icon-button panel-close", "aria-label": "Close the panel", onclick: () => {
      panelTarget = null;
      showPanel(false);
    } }, "×"),
    panelContent);
  const stats = h("span", { class: "muted", id: "graph-stats" });
  const menu = h("div", { class: "context-menu hidden", role: "menu", id: "context-menu" });
  const explore = h("div", { class: "explore" });
  let lastLiterals: CypherResult["literals"] = [];

  const view = new GraphView(graphHost, {
    nodeClick: (node) => openNode(node),
    edgeClick: (edge) => {
      panelTarget = null;
      const nodes = new Map(view.nodes().map((n) => [n.id, n]));
      showPanel(true);
      renderEdgePanel(panelContent, edge, nodes.get(edge.source), nodes.get(edge.target));
    },
    nodeContextMenu: (node, x, y) => showMenu(node, x, y),
    stageClick: () => menu.classList.add("hidden"),
    pickChange: (picked) => showSelection(picked.length),
  });

  function updateStats(): void {
    const { nodes, edges } = view.size;
    stats.textContent = nodes ? `${nodes} nodes, ${edges} edges` : "";
    emptyNote.classList.toggle("hidden", nodes > 0);
  }

  function draw(data: GraphData): void {
    tableHost.classList.add("hidden");
    view.setData(data);
    updateStats();
  }

  function showPanel(visible: boolean): void {
    if (panel.classList.contains("hidden") !== visible) return;
    panel.classList.toggle("hidden", !visible);
    explore.classList.toggle("panel-open", visible);
    view.resize();
  }

  function openNode(node: PanelTarget): void {
    panelTarget = node;
    showPanel(true);
    void renderEntityPanel(panelContent, node, {
      draw: (data) => {
        draw(data);
        view.selectByObjectId(node.objectId);
      },
      open: (objectId, kind, name) => void drawNode({ objectid: objectId, type: kind, name }),
      runCypher: (query) => {
        selectTab("cypher");
        cypher.load(query);
      },
    });
  }

  async function drawNode(hit: SearchHit): Promise<void> {
    try {
      const result = await fetchNode(hit.objectid, true);
      draw(result);
      const node = result.nodes[0];
      if (node) {
        view.select(node.id);
        openNode(node);
      }
    } catch (error) {
      toast(`Could not draw ${hit.name}: ${(error as Error).message}`, "error");
    }
  }

  async function runCypher(query: string): Promise<void> {
    const answer = await api<{ data: any }>("POST", "/graphs/cypher", { query, include_properties: true });
    const result = fromApiGraph(answer.data);
    lastLiterals = result.literals;
    if (result.nodes.length === 0 && result.literals.length) {
      view.setData({ nodes: [], edges: [] });
      updateStats();
      showTable();
    } else {
      draw(result);
    }
  }

  function showTable(): void {
    const { columns, rows } = literalsToTable(lastLiterals);
    renderResultTable(tableHost, columns, rows, () => tableHost.classList.add("hidden"));
    tableHost.classList.remove("hidden");
    emptyNote.classList.add("hidden");
  }

  const paths = pathfindingTab(draw);

  // --- context menu -------------------------------------------------------------------------------
  // Owned and zone changes show once the analysis they request has run: the node is then redrawn.
  const zones = zoneActions((id, changes) => {
    const node = view.updateNode(id, changes);
    if (node && panelTarget?.objectId === node.objectId) openNode(node);
  });
  function showMenu(node: GraphNode, x: number, y: number): void {
    const hit: SearchHit = { objectid: node.objectId, type: node.kind, name: node.label };
    const item = (label: string, action: () => void) => h("button", {
      role: "menuitem", onclick: () => {
        menu.classList.add("hidden");
        action();
      },
    }, label);
    replace(menu,
      item("Set as starting node", () => {
        selectTab("pathfinding");
        paths.setStart(hit);
      }),
      item("Set as ending node", () => {
        selectTab("pathfinding");
        paths.setEnd(hit);
      }),
      paths.canAddDestination && item("Add as destination", () => {
        selectTab("pathfinding");
        paths.addDestination(hit);
      }),
      hasPermission(context.self, "graphdb", "Write") && zones.menuItems(node).map(([label, action]) => item(label, action)),
      item(view.isPicked(node.id) ? "Unselect" : "Select (shift-click)", () => view.togglePicked(node.id)),
      item("Hide from view", () => {
        view.hideNode(node.id);
        updateStats();
      }),
      item("Copy object ID", () => void navigator.clipboard?.writeText(node.objectId)));
    menu.classList.remove("hidden");
    const bounds = root.getBoundingClientRect();
    menu.style.left = `${x - bounds.left}px`;
    menu.style.top = `${y - bounds.top}px`;
    (menu.firstElementChild as HTMLElement | null)?.focus();
  }
  menu.addEventListener("keydown", (event) => event.key === "Escape" && menu.classList.add("hidden"));

  // --- many nodes at once: picked by shift-click or the context menu ------------------------------
  const canWrite = hasPermission(context.self, "graphdb", "Write");
  const selectionCount = h("span", { id: "selection-count" });
  const selectionBar = h("div", { class: "selection-bar hidden", id: "selection-bar", role: "group", "aria-label": "Selected nodes" },
    selectionCount,
    canWrite && h("button", { id: "selection-owned", onclick: () => void zones.markAllOwned(view.picked()) }, "Mark as owned"),
    canWrite && h("button", { id: "selection-zone", onclick: () => void zones.addAllToZone(view.picked()) }, "Add to zone…"),
    h("button", { id: "selection-clear", onclick: () => view.clearPicked() }, "Clear"));
  function showSelection(count: number): void {
    selectionCount.textContent = `${count} selected`;
    selectionBar.classList.toggle("hidden", count === 0);
  }

  // --- tabs ---------------------------------------------------------------------------------------
  const cypher = cypherTab(runCypher, context.self.id);
  const search = searchBox({ id: "node-search", label: "Search nodes", placeholder: "Search by name or object ID", onSelect: (hit) => void drawNode(hit) });
  const tabs: Record<string, HTMLElement> = {
    search: h("div", { class: "tab-body" }, search.element),
    pathfinding: paths.element,
    cypher: h("div", { class: "tab-body" }, cypher.element),
  };
  const tabButtons = Object.keys(tabs).map((name) => h("button", {
    role: "tab", id: `tab-${name}`, "aria-controls": `tabpanel-${name}`, "aria-selected": "false",
    onclick: () => selectTab(name),
  }, name === "search" ? "Search" : name === "pathfinding" ? "Pathfinding" : "Cypher"));
  const tabPanels = Object.entries(tabs).map(([name, body]) =>
    h("div", { role: "tabpanel", id: `tabpanel-${name}`, "aria-labelledby": `tab-${name}`, class: "hidden" }, body));

  function selectTab(name: string): void {
    const names = Object.keys(tabs);
    tabButtons.forEach((button, i) => button.setAttribute("aria-selected", String(names[i] === name)));
    tabPanels.forEach((tabPanel, i) => tabPanel.classList.toggle("hidden", names[i] !== name));
  }
  selectTab("search");

  // --- toolbar ------------------------------------------------------------------------------------
  const layoutSelect = h("select", {
    id: "layout-select", "aria-label": "Layout",
    onchange: () => view.layout(layoutSelect.value as LayoutName),
  }, h("option", { value: "force" }, "Force-directed"), h("option", { value: "hierarchical" }, "Hierarchical"));
  const labelsButton = h("button", {
    id: "toggle-labels", "aria-pressed": "false",
    onclick: () => {
      const visible = view.toggleLabels();
      labelsButton.setAttribute("aria-pressed", String(!visible));
    },
    title: "Hide or show the labels",
  }, "Labels");
  const toolbar = h("div", { class: "graph-toolbar", role: "toolbar", "aria-label": "Graph tools" },
    layoutSelect,
    h("button", { onclick: () => view.fit(), title: "Fit the graph to the screen" }, "Fit"),
    h("button", { onclick: () => view.zoom(1.5), "aria-label": "Zoom in" }, "+"),
    h("button", { onclick: () => view.zoom(1 / 1.5), "aria-label": "Zoom out" }, "−"),
    labelsButton,
    h("button", { id: "export-json", onclick: () => view.exportJson(), title: "Export the graph as JSON" }, "JSON"),
    h("button", { id: "export-png", onclick: () => void view.exportPng(), title: "Export the graph as a PNG image" }, "PNG"),
    h("button", { id: "export-svg", onclick: () => view.exportSvg(), title: "Export the graph as an SVG image" }, "SVG"),
    h("button", { id: "show-table", onclick: () => (lastLiterals.length ? showTable() : toast("The last query returned no table.")) }, "Table"),
    h("button", { id: "select-all", onclick: () => view.pickAll(), title: "Select every node (shift-click picks one)" }, "Select all"),
    stats, selectionBar);

  const left = h("aside", { class: "side-panel left", "aria-label": "Explore tools" },
    h("div", { role: "tablist", class: "tabs", "aria-label": "Explore" }, tabButtons), tabPanels);

  explore.append(graphHost, emptyNote, left, toolbar, tableHost, panel, menu);
  replace(root, explore);
  const onKey = (event: KeyboardEvent) => {
    if (event.key === "Escape") menu.classList.add("hidden");
  };
  document.addEventListener("keydown", onKey);
  search.input.focus();
  void loadCustomKinds().then((found) => found && view.restyle());
  return () => {
    document.removeEventListener("keydown", onKey);
    zones.stop();
    view.kill();
  };
}
