// The entity panel: the entity info endpoint's properties and every count section, each expandable into
// its list and drawable on the graph.
import { get } from "../api";
import { formatValue, h, replace } from "../dom";
import { kindBadge } from "../graph/kinds";
import { fromLegacyGraph, type GraphData } from "../graph/model";
import { objectCypher, sectionCypher } from "./sectionCypher";

// Node kind -> the AD entity route (/api/v2/<slug>/{object_id}) and count key -> list route.
const AD_ENTITIES: Record<string, { slug: string; lists: Record<string, string> }> = {
  User: { slug: "users", lists: { sessions: "sessions", groupMembership: "memberships", adminRights: "admin-rights", rdpRights: "rdp-rights", backupRights: "backup-rights", dcomRights: "dcom-rights", psRemoteRights: "ps-remote-rights", sqlAdmin: "sql-admin-rights", constrainedDelegation: "constrained-delegation-rights", controllables: "controllables", controllers: "controllers", gpos: "gpos" } },
  Group: { slug: "groups", lists: { sessions: "sessions", members: "members", membership: "memberships", adminRights: "admin-rights", rdpRights: "rdp-rights", backupRights: "backup-rights", dcomRights: "dcom-rights", psRemoteRights: "ps-remote-rights", controllables: "controllables", controllers: "controllers" } },
  Computer: { slug: "computers", lists: { sessions: "sessions", adminUsers: "admin-users", rdpUsers: "rdp-users", dcomUsers: "dcom-users", psRemoteUsers: "ps-remote-users", backupOperators: "backup-operators", sqlAdminUsers: "sql-admins", constrainedUsers: "constrained-users", groupMembership: "group-membership", adminRights: "admin-rights", rdpRights: "rdp-rights", backupRights: "backup-rights", dcomRights: "dcom-rights", psRemoteRights: "ps-remote-rights", constrainedPrivs: "constrained-delegation-rights", controllables: "controllables", controllers: "controllers", gpos: "gpos" } },
  Container: { slug: "containers", lists: { controllers: "controllers" } },
  Domain: { slug: "domains", lists: { users: "users", groups: "groups", computers: "computers", ous: "ous", gpos: "gpos", foreignUsers: "foreign-users", foreignGroups: "foreign-groups", foreignGPOControllers: "foreign-gpo-controllers", foreignAdmins: "foreign-admins", inboundTrusts: "inbound-trusts", outboundTrusts: "outbound-trusts", controllers: "controllers", linkedgpos: "linked-gpos", dcsyncers: "dc-syncers", "adcs-escalations": "adcs-escalations" } },
  GPO: { slug: "gpos", lists: { ous: "ous", computers: "computers", users: "users", controllers: "controllers", tierzero: "tier-zero" } },
  OU: { slug: "ous", lists: { gpos: "gpos", users: "users", groups: "groups", computers: "computers" } },
  AIACA: { slug: "aiacas", lists: { controllers: "controllers", "pki-hierarchy": "pki-hierarchy" } },
  RootCA: { slug: "rootcas", lists: { controllers: "controllers", "pki-hierarchy": "pki-hierarchy" } },
  EnterpriseCA: { slug: "enterprisecas", lists: { controllers: "controllers", "pki-hierarchy": "pki-hierarchy", "published-templates": "published-templates" } },
  NTAuthStore: { slug: "ntauthstores", lists: { controllers: "controllers", "trusted-cas": "trusted-cas" } },
  CertTemplate: { slug: "certtemplates", lists: { controllers: "controllers", "published-to-cas": "published-to-cas" } },
  IssuancePolicy: { slug: "issuancepolicies", lists: { controllers: "controllers", linkedTemplates: "linkedtemplates" } },
};

const AZ_ENTITIES: Record<string, string> = {
  AZUser: "users", AZGroup: "groups", AZTenant: "tenants", AZManagementGroup: "management-groups", AZSubscription: "subscriptions",
  AZResourceGroup: "resource-groups", AZVM: "vms", AZDevice: "devices", AZManagedCluster: "managed-clusters",
  AZContainerRegistry: "container-registries", AZWebApp: "web-apps", AZLogicApp: "logic-apps",
  AZAutomationAccount: "automation-accounts", AZFunctionApp: "function-apps", AZApp: "applications",
  AZVMScaleSet: "vm-scale-sets", AZKeyVault: "key-vaults", AZServicePrincipal: "service-principals", AZRole: "roles",
};

const AZ_LISTS: Record<string, string> = {
  group_membership: "group-membership", roles: "roles", execution_privileges: "outbound-execution-privileges",
  outbound_object_control: "outbound-control", inbound_object_control: "inbound-control", group_members: "group-members",
  inboundExecutionPrivileges: "inbound-execution-privileges", KeyReaders: "key-readers", CertificateReaders: "certificate-readers",
  SecretReaders: "secret-readers", AllReaders: "all-readers", active_assignments: "active-assignments",
  pim_assignments: "pim-assignments", approvers: "role-approvers",
  "inbound-abusable-app-role-assignments": "inbound-abusable-app-role-assignments",
  "outbound-abusable-app-role-assignments": "outbound-abusable-app-role-assignments",
};

export interface PanelTarget {
  objectId: string;
  kind: string;
  kinds?: string[];
  label: string;
  isTierZero?: boolean;
  isOwnedObject?: boolean;
  properties?: Record<string, unknown>;
}

export interface PanelActions {
  draw: (data: GraphData) => void;
  open: (objectId: string, kind: string, name: string) => void;
  runCypher: (query: string) => void;
}

interface ListItem {
  objectID?: string;
  objectid?: string;
  name?: string;
  label?: string;
  kind?: string;
  kinds?: string[];
}

const TIMESTAMPS = new Set(["lastlogon", "lastlogontimestamp", "pwdlastset", "whencreated"]);

function title(key: string): string {
  const words = key.replace(/[_-]/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function propertyValue(key: string, value: unknown): string {
  if (TIMESTAMPS.has(key) && typeof value === "number") {
    if (value <= 0) return "Never";
    return new Date(value * 1000).toLocaleString();
  }
  return formatValue(value);
}

function routes(target: PanelTarget): { panel: string; list: (key: string) => string | null } | null {
  const enc = encodeURIComponent(target.objectId);
  const ad = AD_ENTITIES[target.kind];
  if (ad) {
    return {
      panel: `/${ad.slug}/${enc}?counts=true`,
      list: (key) => (ad.lists[key] ? `/${ad.slug}/${enc}/${ad.lists[key]}` : null),
    };
  }
  const az = AZ_ENTITIES[target.kind];
  if (az) {
    return {
      panel: `/azure/${az}?object_id=${enc}&counts=true`,
      list: (key) => {
        const related = AZ_LISTS[key] ?? (key.startsWith("descendent") ? key : null);
        return related ? `/azure/${az}?object_id=${enc}&related_entity_type=${related}` : null;
      },
    };
  }
  return null;
}

function countsOf(data: Record<string, unknown>): [string, number][] {
  const counts: [string, number][] = [];
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === "number") counts.push([key, value]);
    else if (key === "Readers" && value && typeof value === "object") {
      for (const [inner, n] of Object.entries(value)) if (typeof n === "number") counts.push([inner, n]);
    }
  }
  return counts;
}

export async function renderEntityPanel(root: HTMLElement, target: PanelTarget, actions: PanelActions): Promise<void> {
  const header = h("header", { class: "panel-header" },
    kindBadge(target.kind),
    h("div", null,
      h("h2", { id: "entity-name" }, target.label),
      h("div", { class: "chips" },
        h("span", { class: "chip" }, target.kind),
        target.isTierZero && h("span", { class: "chip chip-tier-zero", title: "Tier Zero" }, "Tier Zero"),
        target.isOwnedObject && h("span", { class: "chip chip-owned" }, "Owned"))));
  const body = h("div", { class: "panel-body" }, h("p", { class: "muted" }, "Loading…"));
  replace(root, header, body);

  const route = routes(target);
  let data: Record<string, unknown> = {};
  let props: Record<string, unknown> = target.properties ?? {};
  if (route) {
    try {
      data = (await get<{ data: Record<string, unknown> }>(route.panel)).data ?? {};
      props = (data.props as Record<string, unknown>) ?? (data.properties as Record<string, unknown>) ?? props;
    } catch (error) {
      body.replaceChildren(h("p", { class: "form-error" }, `Could not load the panel: ${(error as Error).message}`));
      return;
    }
  }
  const sections: HTMLElement[] = [];
  const properties = Object.entries(props).sort(([a], [b]) => a.localeCompare(b));
  const cypherTarget = { kind: target.kind, objectId: target.objectId, properties: props };
  const info = h("details", { open: true },
    h("summary", null, h("span", null, "Object Information")),
    h("table", { class: "props" }, h("tbody", null,
      properties.map(([key, value]) => h("tr", null, h("th", { scope: "row" }, key), h("td", null, propertyValue(key, value)))))));
  sections.push(h("div", { class: "panel-section", "data-section": "object-information" }, info,
    h("div", { class: "section-actions" }, cypherToggle(info, objectCypher(cypherTarget), actions))));
  if (route) {
    for (const [key, count] of countsOf(data)) {
      const listPath = route.list(key);
      sections.push(countSection(key, count, listPath, actions, sectionCypher(cypherTarget, key)));
    }
  }
  body.replaceChildren(...sections);
}

/** The section's "Cypher" button: shows the query behind the section under its title, with a way to run it.
 * The section's buttons sit beside its <summary>, never inside it (no control nested in another). */
function cypherToggle(section: HTMLDetailsElement, query: string | null, actions: PanelActions): HTMLElement | null {
  if (!query) return null;
  const block = h("div", { class: "section-cypher" },
    h("pre", { class: "cypher-text" }, query),
    h("button", { class: "small", onclick: () => actions.runCypher(query) }, "Run in the Cypher tab"));
  return h("button", {
    class: "small", "aria-expanded": "false", title: "Show the Cypher query behind this section",
    onclick: (event: MouseEvent) => {
      event.preventDefault();
      event.stopPropagation();
      const button = event.currentTarget as HTMLButtonElement;
      const shown = block.isConnected;
      if (shown) block.remove();
      else section.querySelector("summary")!.after(block);
      button.setAttribute("aria-expanded", String(!shown));
      if (!shown) section.open = true;
    },
  }, "Cypher");
}

function countSection(key: string, count: number, listPath: string | null, actions: PanelActions, cypher: string | null): HTMLElement {
  const content = h("div", { class: "section-content" });
  let loaded = false;
  const drawButton = listPath && count > 0 ? h("button", {
    class: "small", "data-count": key, title: "Draw this list on the graph",
    onclick: async (event: MouseEvent) => {
      event.preventDefault();
      event.stopPropagation();
      const separator = listPath.includes("?") ? "&" : "?";
      try {
        const graph = await get<Record<string, any>>(`${listPath}${separator}type=graph`);
        actions.draw(fromLegacyGraph(graph.data && !graph.data.label ? graph.data : graph));
      } catch (error) {
        content.replaceChildren(h("p", { class: "form-error" }, (error as Error).message));
      }
    },
  }, "Draw") : null;
  const details = h("details", null, h("summary", null, h("span", null, title(key)), h("span", { class: "count" }, String(count))),
    content);
  details.addEventListener("toggle", async () => {
    if (!details.open || loaded) return;
    loaded = true;
    if (!listPath || count === 0) {
      content.replaceChildren(h("p", { class: "muted" }, count === 0 ? "None." : "No list for this count."));
      return;
    }
    content.replaceChildren(h("p", { class: "muted" }, "Loading…"));
    try {
      const separator = listPath.includes("?") ? "&" : "?";
      const answer = await get<{ count?: number; data: ListItem[] }>(`${listPath}${separator}skip=0&limit=100`);
      const items = Array.isArray(answer.data) ? answer.data : [];
      content.replaceChildren(h("ul", { class: "entity-list" }, items.map((item) => {
        const objectId = item.objectID ?? item.objectid ?? "";
        const kind = item.label ?? item.kind ?? item.kinds?.[0] ?? "";
        return h("li", null, h("button", {
          class: "link", onclick: () => actions.open(objectId, kind, item.name ?? objectId),
        }, kindBadge(kind), h("span", null, item.name ?? objectId)));
      })), (answer.count ?? items.length) > items.length ? h("p", { class: "muted" }, `Showing ${items.length} of ${answer.count}.`) : "");
    } catch (error) {
      content.replaceChildren(h("p", { class: "form-error" }, (error as Error).message));
    }
  });
  return h("div", { class: "panel-section count-section", "data-count": key }, details,
    h("div", { class: "section-actions" }, drawButton, cypherToggle(details, cypher, actions)));
}
