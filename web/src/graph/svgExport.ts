// The graph as the screen shows it, written as an SVG document: edges with their arrows and labels, nodes
// with their ring, colour and pictogram, labels under the nodes. Vector output scales for reports and slides.
import type { AbstractGraph } from "graphology-types";
import type Sigma from "sigma";

import { glyphColor, kindLook } from "./kinds";

export interface SvgColors {
  background: string;
  edge: string;
  label: string;
  edgeLabel: string;
}

export interface SvgOptions {
  colors: SvgColors;
  kindOf: (node: string) => string | undefined;
  nodeLabels: boolean;
  edgeLabels: boolean;
  labelSize: number;
  edgeLabelSize: number;
}

const FONT = "system-ui, sans-serif";

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const fixed = (n: number) => n.toFixed(1);

export function graphSvg(renderer: Sigma, graph: AbstractGraph, options: SvgOptions): string {
  const { width, height } = renderer.getDimensions();
  const { colors } = options;
  const position = (node: string) => {
    const data = renderer.getNodeDisplayData(node);
    if (!data || data.hidden) return null;
    const point = renderer.framedGraphToViewport(data);
    return { x: point.x, y: point.y, r: renderer.scaleSize(data.size), label: data.label ?? "" };
  };
  const edges: string[] = [];
  const edgeLabels: string[] = [];
  graph.forEachEdge((edge, attributes, source, target) => {
    const from = position(source);
    const to = position(target);
    if (!from || !to) return;
    const dx = to.x - from.x;
    const dy = to.y - from.y;
    const length = Math.hypot(dx, dy) || 1;
    // The line stops at the target's rim, where the arrow's tip lies.
    const end = { x: to.x - (dx / length) * to.r, y: to.y - (dy / length) * to.r };
    const size = Math.max(1, Number(attributes.size ?? 1));
    edges.push(`<line x1="${fixed(from.x)}" y1="${fixed(from.y)}" x2="${fixed(end.x)}" y2="${fixed(end.y)}" `
      + `stroke="${colors.edge}" stroke-width="${size}" marker-end="url(#arrow)" data-edge="${escape(String(edge))}"/>`);
    if (options.edgeLabels && attributes.label) {
      let angle = (Math.atan2(dy, dx) * 180) / Math.PI;
      if (angle > 90 || angle < -90) angle += 180;  // never upside down
      const mx = (from.x + end.x) / 2;
      const my = (from.y + end.y) / 2;
      edgeLabels.push(`<text x="${fixed(mx)}" y="${fixed(my - 3)}" transform="rotate(${fixed(angle)} ${fixed(mx)} ${fixed(my)})" `
        + `text-anchor="middle" font-size="${options.edgeLabelSize}" fill="${colors.edgeLabel}">${escape(String(attributes.label))}</text>`);
    }
  });
  const nodes: string[] = [];
  graph.forEachNode((node, attributes) => {
    const at = position(node);
    if (!at) return;
    const look = kindLook(options.kindOf(node));
    const color = String(attributes.color ?? look.color);
    const ring = Number(attributes.ringSize ?? 0);
    const parts = [`<g class="node" data-node="${escape(node)}">`];
    if (ring > 0) parts.push(`<circle cx="${fixed(at.x)}" cy="${fixed(at.y)}" r="${fixed(at.r)}" fill="${attributes.ringColor}"/>`);
    parts.push(`<circle cx="${fixed(at.x)}" cy="${fixed(at.y)}" r="${fixed(at.r * (1 - ring))}" fill="${color}"/>`);
    const side = at.r * 1.1;
    parts.push(`<svg x="${fixed(at.x - side / 2)}" y="${fixed(at.y - side / 2)}" width="${fixed(side)}" height="${fixed(side)}" `
      + `viewBox="${look.viewBox}" fill="${glyphColor(color)}">${look.markup}</svg>`);
    if (options.nodeLabels && at.label) {
      parts.push(`<text x="${fixed(at.x)}" y="${fixed(at.y + at.r + options.labelSize + 2)}" text-anchor="middle" `
        + `font-size="${options.labelSize}" fill="${colors.label}">${escape(at.label)}</text>`);
    }
    parts.push("</g>");
    nodes.push(parts.join(""));
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT}">`,
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">`
      + `<path d="M0 0L10 5L0 10z" fill="${colors.edge}"/></marker></defs>`,
    `<rect width="100%" height="100%" fill="${colors.background}"/>`,
    `<g class="edges">${edges.join("")}</g>`,
    `<g class="edge-labels">${edgeLabels.join("")}</g>`,
    `<g class="nodes">${nodes.join("")}</g>`,
    "</svg>",
  ].join("\n");
}
