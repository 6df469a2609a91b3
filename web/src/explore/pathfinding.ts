// Path finding from a start node through up to three ordered destinations. BloodHound's own UI does it
// this way (no route of the API takes more than two nodes): one shortest-path request per consecutive
// pair, all at once, the answers merged here. A leg without a path is named; the legs found are drawn.
import { ApiError, get } from "../api";
import { h, latestOnly, modal, replace } from "../dom";
import { fromApiGraph, type GraphData } from "../graph/model";
import { ALL_PATH_KINDS, EDGE_FILTER_GROUPS } from "./filters";
import { searchBox, type SearchHit } from "./search";

export const MAX_DESTINATIONS = 3;

type Box = ReturnType<typeof searchBox>;

/** The union of the legs' graphs: each node and edge once, in the order the legs reached them. */
export function mergeGraphs(graphs: GraphData[]): GraphData {
  const nodes = new Map<string, GraphData["nodes"][number]>();
  const edges = new Map<string, GraphData["edges"][number]>();
  for (const graph of graphs) {
    for (const node of graph.nodes) if (!nodes.has(node.id)) nodes.set(node.id, node);
    for (const edge of graph.edges) if (!edges.has(edge.id)) edges.set(edge.id, edge);
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}

export function pathfindingTab(draw: (data: GraphData) => void) {
  const excludedKinds = new Set<string>();
  const status = h("p", { class: "muted", role: "status", id: "path-status" });
  const start = searchBox({ id: "path-start", label: "Start node", placeholder: "Start node", onSelect: () => void find() });
  const destinations: Box[] = [];
  const list = h("ol", { class: "path-stops", id: "path-destinations", "aria-label": "Destinations" });
  const addButton = h("button", { id: "path-add-destination", onclick: () => addDestination(null, true) }, "Add destination");
  const searches = latestOnly();  // only the latest search draws: an older, slower answer never replaces a newer one

  function destinationBox(): Box {
    const n = destinations.length + 1;
    return searchBox({ id: `path-end-${n}`, label: `Destination ${n}`, placeholder: n === 1 ? "End node" : `Destination ${n}`,
      onSelect: () => void find() });
  }

  /** Redraws the destination rows: ids, labels and buttons follow the order. */
  function renderStops(): void {
    // The first destination keeps the id of the classic two-node search box.
    destinations.forEach((box, i) => {
      box.input.id = i === 0 ? "path-end" : `path-end-${i + 1}`;
      box.element.querySelector("label")?.setAttribute("for", box.input.id);
      const label = box.element.querySelector("label");
      if (label) label.textContent = destinations.length > 1 ? `Destination ${i + 1}` : "End node";
      box.input.placeholder = destinations.length > 1 ? `Destination ${i + 1}` : "End node";
    });
    const many = destinations.length > 1;
    replace(list, destinations.map((box, i) => h("li", { class: "path-stop", "data-stop": i + 1 },
      box.element,
      many && h("div", { class: "stop-actions" },
        h("button", { class: "icon-button small", "aria-label": `Move destination ${i + 1} up`, title: "Earlier",
          disabled: i === 0, onclick: () => move(i, -1) }, "↑"),
        h("button", { class: "icon-button small", "aria-label": `Move destination ${i + 1} down`, title: "Later",
          disabled: i === destinations.length - 1, onclick: () => move(i, 1) }, "↓"),
        h("button", { class: "icon-button small", "aria-label": `Remove destination ${i + 1}`, title: "Remove",
          onclick: () => remove(i) }, "×")))));
    addButton.toggleAttribute("disabled", destinations.length >= MAX_DESTINATIONS);
  }

  function addDestination(hit: SearchHit | null, focus = false): void {
    if (destinations.length >= MAX_DESTINATIONS) return;
    const box = destinationBox();
    if (hit) box.set(hit);
    destinations.push(box);
    renderStops();
    if (focus) box.input.focus();
  }

  function move(index: number, by: number): void {
    const [box] = destinations.splice(index, 1);
    destinations.splice(index + by, 0, box);
    renderStops();
    void find();
  }

  function remove(index: number): void {
    destinations.splice(index, 1);
    renderStops();
    void find();
  }

  async function leg(from: SearchHit, to: SearchHit, filter: string): Promise<GraphData | string> {
    try {
      const answer = await get<{ data: any }>(`/graphs/shortest-path?start_node=${encodeURIComponent(from.objectid)}`
        + `&end_node=${encodeURIComponent(to.objectid)}${filter}`);
      return fromApiGraph(answer.data);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return `No path from ${from.name} to ${to.name}.`;
      throw error;
    }
  }

  async function find(): Promise<void> {
    const first = start.value();
    const stops = destinations.map((box) => box.value());
    if (!first || !stops.length || stops.some((stop) => !stop)) return;
    const nodes = [first, ...(stops as SearchHit[])];
    const newest = searches();
    status.textContent = "Searching…";
    status.dataset.state = "searching";
    const kinds = ALL_PATH_KINDS.filter((kind) => !excludedKinds.has(kind));
    const filter = excludedKinds.size ? `&relationship_kinds=in:${kinds.join(",")}` : "";
    try {
      const legs = await Promise.all(nodes.slice(1).map((to, i) => leg(nodes[i], to, filter)));
      if (!newest()) return;
      const found = legs.filter((answer): answer is GraphData => typeof answer !== "string");
      const missing = legs.filter((answer): answer is string => typeof answer === "string");
      if (nodes.length === 2 && missing.length) {
        status.textContent = "No path between these nodes.";
      } else {
        draw(mergeGraphs(found));
        status.textContent = missing.join(" ");
      }
    } catch (error) {
      if (!newest()) return;
      status.textContent = (error as Error).message;
    }
    status.dataset.state = "done";
  }

  async function editFilter(): Promise<void> {
    const boxes: [string, HTMLInputElement][] = [];
    const body = EDGE_FILTER_GROUPS.map((group) => h("fieldset", { class: "filter-group" }, h("legend", null, group.group),
      group.sections.map((section) => h("details", null, h("summary", null, section.name),
        h("div", { class: "filter-kinds" }, section.kinds.map((kind) => {
          const box = h("input", { type: "checkbox", checked: !excludedKinds.has(kind), "data-kind": kind });
          boxes.push([kind, box]);
          return h("label", { class: "check" }, box, kind);
        }))))));
    if ((await modal("Path finding edge filter", body, [{ label: "Cancel", value: "cancel" },
      { label: "Apply", value: "ok", primary: true }])) !== "ok") return;
    excludedKinds.clear();
    for (const [kind, box] of boxes) if (!box.checked) excludedKinds.add(kind);
    void find();
  }

  addDestination(null);
  const element = h("div", { class: "tab-body" }, start.element, list,
    h("div", { class: "row" },
      addButton,
      h("button", { id: "path-filter", onclick: () => void editFilter() }, "Edge filter"),
      h("button", { class: "primary", id: "path-find", onclick: () => void find() }, "Find path")),
    status);

  return {
    element,
    setStart(hit: SearchHit): void {
      start.set(hit);
      void find();
    },
    /** The last destination becomes `hit`. */
    setEnd(hit: SearchHit): void {
      destinations[destinations.length - 1].set(hit);
      void find();
    },
    /** `hit` as one more destination, when there is room and the last one is taken. */
    addDestination(hit: SearchHit): void {
      const last = destinations[destinations.length - 1];
      if (!last.value()) last.set(hit);
      else addDestination(hit);
      void find();
    },
    get canAddDestination(): boolean {
      return destinations.length < MAX_DESTINATIONS || !destinations[destinations.length - 1].value();
    },
  };
}
