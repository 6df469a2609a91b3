// The API's graph shapes, normalised: Cypher and path finding answer {nodes: {id: node}, edges: [...]};
// an entity list with type=graph answers the reference's older {id: {data, label}, rel_x: {id1, id2}} map.
import { api } from "../api";

export interface GraphNode {
  id: string;
  label: string;
  kind: string;
  kinds: string[];
  objectId: string;
  isTierZero: boolean;
  isOwnedObject: boolean;
  properties?: Record<string, unknown>;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  kind: string;
  label: string;
  properties?: Record<string, unknown>;
}

export interface GraphData {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface Literal {
  key: string;
  value?: unknown;
}

export interface CypherResult extends GraphData {
  literals: Literal[];
}

type ApiNode = Omit<GraphNode, "id">;
interface ApiEdge {
  source: string;
  target: string;
  kind: string;
  label: string;
  properties?: Record<string, unknown>;
}

export function fromApiGraph(data: { nodes?: Record<string, ApiNode>; edges?: ApiEdge[]; literals?: Literal[] }): CypherResult {
  const nodes = Object.entries(data.nodes ?? {}).map(([id, node]) => ({ ...node, id, kinds: node.kinds ?? [node.kind] }));
  const edges = (data.edges ?? []).map((edge) => ({ ...edge, id: edgeId(edge.source, edge.kind, edge.target) }));
  return { nodes, edges, literals: data.literals ?? [] };
}

interface LegacyItem {
  data?: Record<string, any>;
  label?: { text?: string };
  fontIcon?: { text?: string };
  id1?: string;
  id2?: string;
}

export function fromLegacyGraph(data: Record<string, LegacyItem>): GraphData {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  for (const [id, item] of Object.entries(data)) {
    if (item.id1 !== undefined && item.id2 !== undefined) {
      const kind = item.label?.text ?? "";
      edges.push({ id: edgeId(item.id1, kind, item.id2), source: item.id1, target: item.id2, kind, label: kind,
        properties: item.data });
    } else {
      const props = item.data ?? {};
      const kind = String(props.nodetype ?? item.fontIcon?.text ?? "");
      const kinds: string[] = Array.isArray(props.kinds) ? props.kinds : [kind];
      nodes.push({
        id, label: item.label?.text ?? String(props.name ?? props.objectid ?? id), kind, kinds,
        objectId: String(props.objectid ?? ""),
        isTierZero: String(props.system_tags ?? "").includes("admin_tier_0") || kinds.includes("Tag_Tier_Zero"),
        isOwnedObject: String(props.system_tags ?? "").includes("owned"),
        properties: props,
      });
    }
  }
  return { nodes, edges };
}

export function edgeId(source: string, kind: string, target: string): string {
  return `${source}-${kind}-${target}`;
}

/** Non-graph Cypher answers come as a flat key/value list; a row ends where a key repeats. */
export function literalsToTable(literals: Literal[]): { columns: string[]; rows: unknown[][] } {
  const columns: string[] = [];
  const rows: unknown[][] = [];
  let row: Map<string, unknown> | null = null;
  for (const literal of literals) {
    if (!columns.includes(literal.key)) columns.push(literal.key);
    if (!row || row.has(literal.key)) {
      row = new Map();
      rows.push([]);
    }
    row.set(literal.key, literal.value ?? null);
    rows[rows.length - 1] = columns.map((column) => (row!.has(column) ? row!.get(column) : null));
  }
  return { columns, rows };
}

/** A Cypher string literal of `value`. */
export function cypherString(value: string): string {
  return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** The graph of the node whose object ID is `objectId` (no nodes when there is none). */
export async function fetchNode(objectId: string, includeProperties = false): Promise<CypherResult> {
  const answer = await api<{ data: any }>("POST", "/graphs/cypher", {
    query: `MATCH (n) WHERE n.objectid = ${cypherString(objectId)} RETURN n LIMIT 1`, include_properties: includeProperties,
  });
  return fromApiGraph(answer.data);
}
