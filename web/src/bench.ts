// Graph drawing benchmark (bench/ui_graph.py opens it in Chromium): a synthetic graph of N nodes and M edges
// drawn by the explorer's own GraphView; reports time to first frame and frame times while panning.
import "./styles.css";

import type { GraphData } from "./graph/model";
import { GraphView } from "./graph/view";

const KINDS = ["User", "Group", "Computer", "Domain", "GPO", "OU", "CertTemplate", "EnterpriseCA"];
const EDGE_KINDS = ["MemberOf", "AdminTo", "HasSession", "GenericAll", "Contains", "GPLink", "Enroll"];

function synthetic(nodes: number, edges: number): GraphData {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const data: GraphData = { nodes: [], edges: [] };
  for (let i = 0; i < nodes; i++) {
    data.nodes.push({ id: String(i), label: `NODE-${i}@BENCH.LOCAL`, kind: KINDS[i % KINDS.length], kinds: [KINDS[i % KINDS.length]],
      objectId: `S-1-5-21-0-0-0-${i}`, isTierZero: i % 97 === 0, isOwnedObject: false });
  }
  const seen = new Set<string>();
  while (data.edges.length < edges) {
    const source = Math.floor(random() * nodes);
    const target = Math.floor(random() * nodes);
    const kind = EDGE_KINDS[data.edges.length % EDGE_KINDS.length];
    const id = `${source}-${kind}-${target}`;
    if (source === target || seen.has(id)) continue;
    seen.add(id);
    data.edges.push({ id, source: String(source), target: String(target), kind, label: kind });
  }
  return data;
}

const nextFrame = () => new Promise<number>((resolve) => requestAnimationFrame(resolve));

async function run(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const nodes = Number(params.get("nodes") ?? 5000);
  const edges = Number(params.get("edges") ?? 10000);
  const frames = Number(params.get("frames") ?? 120);
  const output = document.getElementById("bench-result")!;
  const data = synthetic(nodes, edges);

  const start = performance.now();
  let settled = 0;
  let workerMs = 0;
  const view = new GraphView(document.getElementById("bench-graph")!, { layoutSettled: (ms) => {
    settled = performance.now() - start;
    workerMs = ms;
  } });
  let firstFrame = 0;
  view.sigma.once("afterRender", () => (firstFrame = performance.now() - start));
  view.setData(data, "force");
  const layoutDone = performance.now() - start;
  while (!firstFrame) await nextFrame();
  // A large graph is drawn first in its starting layout; the frames below are timed once the layout settled.
  while (data.nodes.length >= GraphView.WORKER_LAYOUT_FROM && !settled) await nextFrame();
  // How long sigma's own render call takes (the main-thread work of a frame), whatever triggered it.
  let renders: number[] = [];
  let renderStart = 0;
  view.sigma.on("beforeRender", () => (renderStart = performance.now()));
  view.sigma.on("afterRender", () => renders.push(performance.now() - renderStart));

  // Full redraws: move the camera a little every frame, as an animation would, and time each frame.
  const camera = view.sigma.getCamera();
  const redraws: number[] = [];
  let last = await nextFrame();
  for (let i = 0; i < frames; i++) {
    const state = camera.getState();
    camera.setState({ x: state.x + 0.002 * Math.sin(i / 10), y: state.y + 0.002 * Math.cos(i / 10) });
    const now = await nextFrame();
    redraws.push(now - last);
    last = now;
  }
  const result: Record<string, number> = {
    nodes: view.size.nodes, edges: view.size.edges, layout_and_build_ms: Math.round(layoutDone),
    first_frame_ms: Math.round(firstFrame), layout_settled_ms: Math.round(settled || layoutDone),
    layout_worker_ms: Math.round(workerMs), ...stats("redraw", redraws), ...stats("redraw_render", renders),
  };
  renders = [];
  output.textContent = JSON.stringify(result);
  output.dataset.ready = "true";

  // Dragging with the mouse (driven by bench/ui_graph.py): frame intervals from mousedown to mouseup.
  const drag: number[] = [];
  let dragging = false;
  const container = document.getElementById("bench-graph")!;
  container.addEventListener("mousedown", async () => {
    dragging = true;
    let previous = await nextFrame();
    while (dragging) {
      const now = await nextFrame();
      drag.push(now - previous);
      previous = now;
    }
  });
  container.addEventListener("mouseup", () => {
    dragging = false;
    Object.assign(result, stats("drag", drag), stats("drag_render", renders));
    output.textContent = JSON.stringify(result);
    output.dataset.done = "true";
  });
}

function stats(name: string, times: number[]): Record<string, number> {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return {
    [`${name}_frames`]: sorted.length,
    [`${name}_frame_ms_median`]: Number(median.toFixed(1)),
    [`${name}_frame_ms_p95`]: Number((sorted[Math.floor(sorted.length * 0.95)] ?? 0).toFixed(1)),
  };
}

void run();
