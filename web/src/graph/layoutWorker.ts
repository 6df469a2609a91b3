// ForceAtlas2 for a large graph, in a worker: the main thread draws the graph at once in its starting (circular)
// layout and stays responsive while the layout runs, then moves the nodes to where it settled.
import { MultiDirectedGraph } from "graphology";
import forceAtlas2 from "graphology-layout-forceatlas2";

export interface LayoutRequest {
  run: number;
  order: number;
  // Edge i goes from node sources[i] to node targets[i], nodes numbered 0..order-1.
  sources: Int32Array;
  targets: Int32Array;
  x: Float32Array;
  y: Float32Array;
  iterations: number;
}

export interface LayoutAnswer {
  run: number;
  x: Float32Array;
  y: Float32Array;
  ms: number;  // the worker's own time on it, for the benchmark
}

self.onmessage = (event: MessageEvent<LayoutRequest>) => {
  const started = performance.now();
  const { run, order, sources, targets, x, y, iterations } = event.data;
  const graph = new MultiDirectedGraph();
  for (let i = 0; i < order; i++) graph.addNode(String(i), { x: x[i], y: y[i] });
  for (let e = 0; e < sources.length; e++) graph.addEdge(String(sources[e]), String(targets[e]));
  const settings = forceAtlas2.inferSettings(graph);
  forceAtlas2.assign(graph, { iterations, settings });
  graph.forEachNode((node, attributes) => {
    x[Number(node)] = attributes.x;
    y[Number(node)] = attributes.y;
  });
  const answer: LayoutAnswer = { run, x, y, ms: performance.now() - started };
  (self as unknown as Worker).postMessage(answer, [x.buffer, y.buffer]);
};
