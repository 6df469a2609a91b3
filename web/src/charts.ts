// Line charts and sparklines drawn as SVG (no chart library: a few dozen points per series).
import { svg } from "./dom";

export interface Point {
  t: number;
  v: number;
}

export interface Series {
  name: string;
  points: Point[];
}

const WIDTH = 320;
const HEIGHT = 140;
const PAD = 28;

/** One or more series over time; `percent` reads the values as 0-100 shares. */
export function lineChart(title: string, series: Series[] | Point[], percent = false, max?: number): SVGElement {
  const all: Series[] = series.length && "t" in (series[0] as Point) ? [{ name: title, points: series as Point[] }] : series as Series[];
  const points = all.flatMap((s) => s.points);
  const ts = points.map((p) => p.t);
  const tMin = Math.min(...ts);
  const tMax = Math.max(...ts);
  const vMax = max ?? (percent ? 100 : Math.max(1, ...points.map((p) => p.v)));
  const x = (t: number) => PAD + (tMax === tMin ? (WIDTH - 2 * PAD) / 2 : ((t - tMin) / (tMax - tMin)) * (WIDTH - 2 * PAD));
  const y = (v: number) => HEIGHT - PAD - (v / vMax) * (HEIGHT - 2 * PAD);
  const label = (v: number) => (percent ? `${Math.round(v)}%` : String(Math.round(v * 100) / 100));
  return svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "chart", role: "img", "aria-label": `${title} over time` },
    svg("title", {}, `${title} over time`),
    svg("line", { x1: PAD, y1: HEIGHT - PAD, x2: WIDTH - PAD, y2: HEIGHT - PAD, class: "axis" }),
    svg("line", { x1: PAD, y1: PAD, x2: PAD, y2: HEIGHT - PAD, class: "axis" }),
    svg("text", { x: 2, y: PAD + 4, class: "tick" }, label(vMax)),
    svg("text", { x: 2, y: HEIGHT - PAD + 4, class: "tick" }, "0"),
    svg("text", { x: PAD, y: HEIGHT - 8, class: "tick" }, new Date(tMin).toLocaleDateString()),
    svg("text", { x: WIDTH - PAD, y: HEIGHT - 8, class: "tick", "text-anchor": "end" }, new Date(tMax).toLocaleDateString()),
    ...all.flatMap((s, index) => [
      svg("path", { d: pathOf(s.points, x, y), class: `series series-${index % 6}` }),
      ...s.points.map((p) => svg("circle", { cx: x(p.t).toFixed(1), cy: y(p.v).toFixed(1), r: 3, class: `point series-${index % 6}` },
        svg("title", {}, `${all.length > 1 ? `${s.name}, ` : ""}${new Date(p.t).toLocaleString()}: ${label(p.v)}`))),
    ]));
}

function pathOf(points: Point[], x: (t: number) => number, y: (v: number) => number): string {
  return points.map((p, i) => `${i ? "L" : "M"}${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ");
}

/** A small inline trend (no axes) for a table cell. */
export function sparkline(title: string, points: Point[]): SVGElement {
  const width = 96;
  const height = 24;
  const ts = points.map((p) => p.t);
  const tMin = Math.min(...ts);
  const tMax = Math.max(...ts);
  const vMax = Math.max(1, ...points.map((p) => p.v));
  const x = (t: number) => 2 + (tMax === tMin ? (width - 4) / 2 : ((t - tMin) / (tMax - tMin)) * (width - 4));
  const y = (v: number) => height - 2 - (v / vMax) * (height - 4);
  return svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "sparkline", role: "img", "aria-label": title },
    svg("title", {}, title),
    svg("path", { d: pathOf(points, x, y), class: "series" }),
    ...points.slice(-1).map((p) => svg("circle", { cx: x(p.t).toFixed(1), cy: y(p.v).toFixed(1), r: 2, class: "point" })));
}
