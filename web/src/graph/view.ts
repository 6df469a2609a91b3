// The graph canvas: graphology holds the graph, sigma draws it with WebGL. Layouts, drag, selection,
// label toggling and exports live here; the explore page wires the events to its panels.
import dagre from "@dagrejs/dagre";
import { downloadAsPNG } from "@sigma/export-image";
import { createNodeBorderProgram } from "@sigma/node-border";
import { createNodeImageProgram } from "@sigma/node-image";
import { MultiDirectedGraph } from "graphology";
import { circular } from "graphology-layout";
import forceAtlas2 from "graphology-layout-forceatlas2";
import Sigma from "sigma";
import { EdgeArrowProgram } from "sigma/rendering";
import { createNodeCompoundProgram } from "sigma/rendering";

import { download } from "../dom";
import { drawLabelBelow, hoverDrawer } from "./labels";
import { glyphColor, kindColor, kindIcon } from "./kinds";
import type { GraphData, GraphEdge, GraphNode } from "./model";
import type { LayoutAnswer, LayoutRequest } from "./layoutWorker";
import { graphSvg } from "./svgExport";

export type LayoutName = "force" | "hierarchical";

export interface GraphEvents {
  nodeClick?: (node: GraphNode) => void;
  edgeClick?: (edge: GraphEdge) => void;
  nodeContextMenu?: (node: GraphNode, x: number, y: number) => void;
  stageClick?: () => void;
  /** The set of picked nodes changed (shift-click, or the context menu's Select). */
  pickChange?: (picked: GraphNode[]) => void;
  /** A layout run in the worker has moved the nodes to where it settled (`workerMs`: its time in the worker). */
  layoutSettled?: (workerMs: number) => void;
}

const TIER_ZERO_RING = "#f2b705";
const OWNED_RING = "#e5484d";

/** A node's colour and pictogram, from its kind (custom kinds included). */
function look(node: GraphNode): { color: string; image: string; pictoColor: string } {
  const color = kindColor(node.kind);
  return { color, image: kindIcon(node.kind), pictoColor: glyphColor(color) };
}

/** The ring around a node: red when owned, gold when Tier Zero. */
function ring(node: GraphNode): { ringSize: number; ringColor: string } {
  const color = node.isOwnedObject ? OWNED_RING : node.isTierZero ? TIER_ZERO_RING : null;
  return { ringSize: color ? 0.22 : 0, ringColor: color ?? "#0000" };
}

function themeColors() {
  const styles = getComputedStyle(document.documentElement);
  return {
    label: styles.getPropertyValue("--graph-label").trim() || "#222",
    edge: styles.getPropertyValue("--graph-edge").trim() || "#9aa4ad",
    edgeLabel: styles.getPropertyValue("--graph-edge-label").trim() || "#555",
    background: styles.getPropertyValue("--graph-bg").trim() || "#fff",
    highlight: styles.getPropertyValue("--accent").trim() || "#1f6feb",
  };
}

export class GraphView {
  readonly graph = new MultiDirectedGraph();
  private renderer: Sigma;
  private nodesById = new Map<string, GraphNode>();
  private edgesById = new Map<string, GraphEdge>();
  private selected: string | null = null;
  // Nodes picked for an action on many at once (mark owned, add to a zone), apart from the one selected.
  private pickedIds = new Set<string>();
  private labelsVisible = true;
  // Past this many edges their labels are not drawn (unreadable, and the most costly part of a frame).
  static readonly EDGE_LABEL_LIMIT = 500;
  private dragged: string | null = null;
  private dragMoved = false;
  layoutName: LayoutName = "force";
  // From this many nodes, ForceAtlas2 runs in a worker: the graph is drawn at once and settles when it is done.
  static readonly WORKER_LAYOUT_FROM = 1000;
  private layoutRun = 0;  // a worker's answer for an older run (newer data or layout since) is dropped
  private layoutWorker: Worker | null = null;
  private pendingIds: string[] = [];  // the nodes of the worker's current run, in the order it numbers them
  private colors = themeColors();

  constructor(private container: HTMLElement, private events: GraphEvents = {}) {
    const drawHover = hoverDrawer(() => this.colors.background);
    const NodeProgram = createNodeCompoundProgram([
      createNodeBorderProgram({
        borders: [
          { size: { attribute: "ringSize", defaultValue: 0 }, color: { attribute: "ringColor", defaultValue: "#0000" } },
          { size: { fill: true }, color: { attribute: "color" } },
        ],
      }),
      createNodeImageProgram({ drawingMode: "color", colorAttribute: "pictoColor", padding: 0.28, keepWithinCircle: true, debounceTimeout: 0 }),
    ], drawLabelBelow, drawHover);
    const colors = themeColors();
    this.renderer = new Sigma(this.graph, container, {
      defaultNodeType: "kind",
      nodeProgramClasses: { kind: NodeProgram },
      defaultEdgeType: "arrow",
      edgeProgramClasses: { arrow: EdgeArrowProgram },
      renderEdgeLabels: true,
      enableEdgeEvents: true,
      defaultDrawNodeHover: drawHover,
      defaultDrawNodeLabel: drawLabelBelow,
      labelColor: { color: colors.label },
      edgeLabelColor: { color: colors.edgeLabel },
      labelFont: "system-ui, sans-serif",
      edgeLabelFont: "system-ui, sans-serif",
      labelSize: 12,
      edgeLabelSize: 10,
      labelRenderedSizeThreshold: 6,
      zIndex: true,
      stagePadding: 40,
      // Small graphs: show most labels (the default grid keeps about one label per 100px cell).
      labelDensity: 2,
      labelGridCellSize: 60,
      allowInvalidContainer: true,
      nodeReducer: (node, data) => {
        if (this.selected === node) return { ...data, highlighted: true, zIndex: 2 };
        if (this.pickedIds.has(node)) return { ...data, ringSize: 0.3, ringColor: this.colors.highlight, zIndex: 1 };
        return data;
      },
      edgeReducer: (edge, data) => {
        if (this.selected === edge) return { ...data, color: this.colors.highlight, size: 4, zIndex: 2 };
        return data;
      },
    });
    this.wireEvents();
    window.addEventListener("themechange", () => this.applyTheme());
  }

  private applyTheme(): void {
    const colors = (this.colors = themeColors());
    this.renderer.setSetting("labelColor", { color: colors.label });
    this.renderer.setSetting("edgeLabelColor", { color: colors.edgeLabel });
    this.graph.forEachEdge((edge) => this.graph.setEdgeAttribute(edge, "color", colors.edge));
  }

  private wireEvents(): void {
    const r = this.renderer;
    r.on("downNode", ({ node, event }) => {
      // Only the left button drags: a right click opens the context menu and leaves the node where it is.
      if ("button" in event.original && event.original.button !== 0) return;
      this.dragged = node;
      this.dragMoved = false;
      if (!r.getCustomBBox()) r.setCustomBBox(r.getBBox());
    });
    r.on("moveBody", ({ event }) => {
      if (!this.dragged) return;
      this.dragMoved = true;
      const position = r.viewportToGraph(event);
      this.graph.mergeNodeAttributes(this.dragged, { x: position.x, y: position.y });
      event.preventSigmaDefault();
      event.original.preventDefault();
      event.original.stopPropagation();
    });
    const release = () => {
      this.dragged = null;
    };
    r.on("upNode", release);
    r.on("upStage", release);
    r.on("clickNode", ({ node, event }) => {
      if (this.dragMoved) return;
      const original = event.original as MouseEvent;
      if (original.shiftKey || original.ctrlKey || original.metaKey) {
        this.togglePicked(node);
        return;
      }
      this.select(node);
      const found = this.nodesById.get(node);
      if (found) this.events.nodeClick?.(found);
    });
    r.on("clickEdge", ({ edge }) => {
      this.select(edge);
      const found = this.edgesById.get(edge);
      if (found) this.events.edgeClick?.(found);
    });
    r.on("rightClickNode", ({ node, event }) => {
      event.original.preventDefault();
      const found = this.nodesById.get(node);
      const rect = this.container.getBoundingClientRect();
      if (found) this.events.nodeContextMenu?.(found, rect.left + event.x, rect.top + event.y);
    });
    r.on("clickStage", () => {
      this.select(null);
      this.events.stageClick?.();
    });
  }

  select(key: string | null): void {
    this.selected = key;
    this.renderer.refresh({ skipIndexation: true });
  }

  selectByObjectId(objectId: string): GraphNode | undefined {
    const node = [...this.nodesById.values()].find((n) => n.objectId === objectId);
    if (node) this.select(node.id);
    return node;
  }

  togglePicked(id: string): void {
    if (!this.pickedIds.delete(id) && this.graph.hasNode(id)) this.pickedIds.add(id);
    this.pickChanged();
  }

  isPicked(id: string): boolean {
    return this.pickedIds.has(id);
  }

  picked(): GraphNode[] {
    return [...this.pickedIds].map((id) => this.nodesById.get(id)).filter((n): n is GraphNode => n !== undefined);
  }

  pickAll(): void {
    this.graph.forEachNode((id) => this.pickedIds.add(id));
    this.pickChanged();
  }

  clearPicked(): void {
    if (!this.pickedIds.size) return;
    this.pickedIds.clear();
    this.pickChanged();
  }

  private pickChanged(): void {
    this.renderer.refresh({ skipIndexation: true });
    this.events.pickChange?.(this.picked());
  }

  get size(): { nodes: number; edges: number } {
    return { nodes: this.graph.order, edges: this.graph.size };
  }

  nodes(): GraphNode[] {
    return [...this.nodesById.values()];
  }

  edges(): GraphEdge[] {
    return [...this.edgesById.values()];
  }

  setData(data: GraphData, layout: LayoutName = this.layoutName): void {
    this.graph.clear();
    this.nodesById.clear();
    this.edgesById.clear();
    this.selected = null;
    this.pickedIds.clear();
    this.events.pickChange?.([]);
    this.renderer.setCustomBBox(null);
    this.addData(data, false);
    this.applyLabelSettings();
    this.layout(layout);
  }

  addData(data: GraphData, relayout = true): void {
    const edgeColor = themeColors().edge;
    const size = data.nodes.length > 1000 ? 6 : data.nodes.length > 100 ? 10 : 16;
    for (const node of data.nodes) {
      this.nodesById.set(node.id, node);
      this.graph.mergeNode(node.id, { label: node.label, size, ...look(node), ...ring(node), x: Math.random(), y: Math.random() });
    }
    for (const edge of data.edges) {
      if (!this.graph.hasNode(edge.source) || !this.graph.hasNode(edge.target) || this.graph.hasEdge(edge.id)) continue;
      this.edgesById.set(edge.id, edge);
      this.graph.addDirectedEdgeWithKey(edge.id, edge.source, edge.target, {
        label: edge.label || edge.kind, size: data.edges.length > 2000 ? 1 : 3, color: edgeColor,
      });
    }
    if (relayout) this.layout(this.layoutName);
  }

  /** Takes a node and its edges off the view (not out of the graph database). */
  hideNode(id: string): void {
    if (!this.graph.hasNode(id)) return;
    for (const edge of this.graph.edges(id)) this.edgesById.delete(edge);
    this.graph.dropNode(id);
    this.nodesById.delete(id);
    if (this.selected === id) this.selected = null;
    if (this.pickedIds.delete(id)) this.events.pickChange?.(this.picked());
  }

  /** Draws every node again with its kind's current look (after the custom kinds were read). */
  restyle(): void {
    for (const [id, node] of this.nodesById) this.graph.mergeNodeAttributes(id, look(node));
  }

  /** Changes a drawn node's markers (owned, Tier Zero) in place, keeping its position. */
  updateNode(id: string, changes: Pick<Partial<GraphNode>, "isOwnedObject" | "isTierZero">): GraphNode | undefined {
    const node = this.nodesById.get(id);
    if (!node) return undefined;
    Object.assign(node, changes);
    this.graph.mergeNodeAttributes(id, ring(node));
    return node;
  }

  layout(name: LayoutName): void {
    this.layoutName = name;
    this.layoutRun++;
    if (this.graph.order === 0) {
      this.renderer.refresh();
      return;
    }
    if (name === "hierarchical") this.hierarchical();
    else this.force();
    this.renderer.setCustomBBox(null);
    this.fit();
  }

  private force(): void {
    circular.assign(this.graph, { scale: Math.sqrt(this.graph.order) * 10 });
    if (this.graph.order >= GraphView.WORKER_LAYOUT_FROM) {
      this.forceInWorker();
      return;
    }
    const settings = forceAtlas2.inferSettings(this.graph);
    const iterations = this.graph.order > 2000 ? 40 : this.graph.order > 300 ? 120 : 300;
    forceAtlas2.assign(this.graph, { iterations, settings: { ...settings, adjustSizes: this.graph.order < 300 } });
  }

  private forceInWorker(): void {
    const ids = this.graph.nodes();
    const index = new Map(ids.map((id, i) => [id, i]));
    const sources = new Int32Array(this.graph.size);
    const targets = new Int32Array(this.graph.size);
    let e = 0;
    this.graph.forEachEdge((_edge, _attributes, source, target) => {
      sources[e] = index.get(source)!;
      targets[e++] = index.get(target)!;
    });
    const x = new Float32Array(ids.length);
    const y = new Float32Array(ids.length);
    ids.forEach((id, i) => {
      x[i] = this.graph.getNodeAttribute(id, "x");
      y[i] = this.graph.getNodeAttribute(id, "y");
    });
    const run = this.layoutRun;
    const iterations = ids.length > 2000 ? 40 : 120;
    if (!this.layoutWorker) {
      this.layoutWorker = new Worker(new URL("./layoutWorker.ts", import.meta.url), { type: "module" });
      this.layoutWorker.onmessage = (event: MessageEvent<LayoutAnswer>) => this.settle(event.data);
    }
    this.pendingIds = ids;
    const request: LayoutRequest = { run, order: ids.length, sources, targets, x, y, iterations };
    this.layoutWorker.postMessage(request, [sources.buffer, targets.buffer, x.buffer, y.buffer]);
  }

  private settle(answer: LayoutAnswer): void {
    if (answer.run !== this.layoutRun) return;
    this.pendingIds.forEach((id, i) => {
      if (this.graph.hasNode(id)) this.graph.mergeNodeAttributes(id, { x: answer.x[i], y: answer.y[i] });
    });
    this.renderer.setCustomBBox(null);
    this.renderer.refresh();
    this.fit();
    this.events.layoutSettled?.(answer.ms);
  }

  private hierarchical(): void {
    const layout = new dagre.graphlib.Graph({ multigraph: true });
    layout.setGraph({ rankdir: "LR", nodesep: 60, ranksep: 220, edgesep: 10 });
    layout.setDefaultEdgeLabel(() => ({}));
    this.graph.forEachNode((node) => layout.setNode(node, { width: 40, height: 40 }));
    this.graph.forEachEdge((edge, _attrs, source, target) => layout.setEdge(source, target, {}, edge));
    dagre.layout(layout);
    this.graph.forEachNode((node) => {
      const position = layout.node(node);
      this.graph.mergeNodeAttributes(node, { x: position.x, y: -position.y });
    });
  }

  /** After the container changed size (a panel opened or closed). */
  resize(): void {
    this.renderer.resize();
    this.renderer.refresh();
  }

  fit(): void {
    // A little room around the graph for the labels under the outer nodes.
    const whole = { x: 0.5, y: 0.5, ratio: 1.3, angle: 0 };
    // A large graph jumps there: each frame of an animation redraws every node and edge, and takes the CPU
    // that its layout in the worker needs.
    if (this.graph.order >= GraphView.WORKER_LAYOUT_FROM) this.renderer.getCamera().setState(whole);
    else this.renderer.getCamera().animate(whole, { duration: 200 });
  }

  zoom(factor: number): void {
    const camera = this.renderer.getCamera();
    if (factor > 1) camera.animatedZoom({ duration: 150, factor });
    else camera.animatedUnzoom({ duration: 150, factor: 1 / factor });
  }

  toggleLabels(): boolean {
    this.labelsVisible = !this.labelsVisible;
    this.applyLabelSettings();
    return this.labelsVisible;
  }

  private applyLabelSettings(): void {
    const large = this.graph.size > GraphView.EDGE_LABEL_LIMIT;
    this.renderer.setSetting("renderLabels", this.labelsVisible);
    this.renderer.setSetting("renderEdgeLabels", this.labelsVisible && !large);
    // Large graphs: draw edges only at rest while the user drags or zooms the view.
    this.renderer.setSetting("hideEdgesOnMove", large);
    this.renderer.setSetting("labelRenderedSizeThreshold", large ? 10 : 6);
  }

  exportJson(): void {
    const data = { nodes: this.nodes(), edges: this.edges() };
    download("houndgraph-graph.json", new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
  }

  async exportPng(): Promise<void> {
    await downloadAsPNG(this.renderer, { fileName: "houndgraph-graph", backgroundColor: themeColors().background });
  }

  exportSvg(): void {
    const colors = themeColors();
    const svg = graphSvg(this.renderer, this.graph, {
      colors: { background: colors.background, edge: colors.edge, label: colors.label, edgeLabel: colors.edgeLabel },
      kindOf: (id) => this.nodesById.get(id)?.kind,
      nodeLabels: this.labelsVisible,
      edgeLabels: Boolean(this.renderer.getSetting("renderEdgeLabels")),
      labelSize: this.renderer.getSetting("labelSize"),
      edgeLabelSize: this.renderer.getSetting("edgeLabelSize"),
    });
    download("houndgraph-graph.svg", new Blob([svg], { type: "image/svg+xml" }));
  }

  /** The sigma renderer, for benchmarks. */
  get sigma(): Sigma {
    return this.renderer;
  }

  kill(): void {
    this.layoutWorker?.terminate();
    this.renderer.kill();
  }
}
