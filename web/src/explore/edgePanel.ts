// The edge panel: the relationship's ends and properties, and our help text for its kind.
import { formatValue, h, replace } from "../dom";
import { edgeHelp } from "../data/edgeHelp";
import type { GraphEdge, GraphNode } from "../graph/model";

export function renderEdgePanel(root: HTMLElement, edge: GraphEdge, source?: GraphNode, target?: GraphNode): void {
  const help = edgeHelp(edge.kind);
  const props = Object.entries(edge.properties ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const section = (name: string, ...content: (Node | string)[]) =>
    h("details", { class: "panel-section", open: true }, h("summary", null, name), h("div", { class: "section-content" }, ...content));
  replace(root,
    h("header", { class: "panel-header" }, h("div", null,
      h("h2", { id: "edge-kind" }, edge.kind),
      h("p", { class: "muted" }, `${source?.label ?? edge.source} → ${target?.label ?? edge.target}`))),
    h("div", { class: "panel-body" },
      section("General", h("p", null, help.summary)),
      section("Abuse", h("p", null, help.abuse)),
      section("Detection", h("p", null, help.detect)),
      section("Remediation", h("p", null, help.remediate)),
      section("References", h("ul", null, help.references.map((url) =>
        h("li", null, h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, url))))),
      props.length ? section("Properties", h("table", { class: "props" }, h("tbody", null,
        props.map(([key, value]) => h("tr", null, h("th", { scope: "row" }, key), h("td", null, formatValue(value))))))) : ""));
}
