// Colours and pictograms per node kind. The pictograms are our own simple 24×24 SVG glyphs, drawn by the
// node-image program in white on a circle of the kind's colour.

const GLYPHS: Record<string, string> = {
  user: '<circle cx="12" cy="8" r="4.5"/><path d="M3 22c0-5 4-8.5 9-8.5s9 3.5 9 8.5z"/>',
  group: '<circle cx="8" cy="8" r="3.5"/><circle cx="16.5" cy="8" r="3.5"/><path d="M1 20c0-4 3-6.5 7-6.5s7 2.5 7 6.5z"/><path d="M12.5 14c1.2-.4 2.5-.5 4-.5 4 0 6.5 2.5 6.5 6.5h-7c0-2.5-1.2-4.5-3.5-6z"/>',
  computer: '<rect x="2" y="3" width="20" height="13" rx="1.5"/><path d="M8 21h8l-1-3H9z"/>',
  domain: '<path fill-rule="evenodd" d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm0 2c1.4 1.6 2.3 3.8 2.6 7H9.4C9.7 7.8 10.6 5.6 12 4zM4.1 11a8 8 0 0 1 3.3-5.6A14 14 0 0 0 7.4 11zm0 2h3.3a14 14 0 0 0 0 5.6A8 8 0 0 1 4.1 13zm5.3 0h5.2c-.3 3.2-1.2 5.4-2.6 7-1.4-1.6-2.3-3.8-2.6-7zm7.2 0h3.3a8 8 0 0 1-3.3 5.6c.2-1.7.2-3.7 0-5.6zm0-2a14 14 0 0 0 0-5.6 8 8 0 0 1 3.3 5.6z"/>',
  gpo: '<path fill-rule="evenodd" d="M5 2h10l5 5v15H5zm3 8v2h9v-2zm0 4v2h9v-2zm0 4v1h6v-1z"/>',
  ou: '<path d="M2 5h7l2 2h11v13H2z"/>',
  container: '<path d="M12 2l9 4.5v11L12 22l-9-4.5v-11z"/>',
  certificate: '<path fill-rule="evenodd" d="M3 3h18v13H3zm3 3v2h12V6zm0 4v2h7v-2z"/><circle cx="17" cy="17" r="3.5"/><path d="M15 19.5l-1 3.5 3-1.5 3 1.5-1-3.5z"/>',
  authority: '<path d="M12 1l10 5v2H2V6zM4 10h3v8H4zm6.5 0h3v8h-3zM17 10h3v8h-3zM2 20h20v3H2z"/>',
  store: '<ellipse cx="12" cy="5" rx="9" ry="3"/><path d="M3 7.5c0 1.7 4 3 9 3s9-1.3 9-3V12c0 1.7-4 3-9 3s-9-1.3-9-3zM3 14.5c0 1.7 4 3 9 3s9-1.3 9-3V19c0 1.7-4 3-9 3s-9-1.3-9-3z"/>',
  policy: '<path d="M12 1l9 4v6c0 6-4 10.5-9 12-5-1.5-9-6-9-12V5z"/>',
  cloud: '<path d="M6.5 19A5.5 5.5 0 0 1 6 8a7 7 0 0 1 13.3 1.6A4.8 4.8 0 0 1 18.5 19z"/>',
  key: '<circle cx="7" cy="12" r="5"/><path d="M11 10.5h11v3h-2v3h-3v-3h-6z"/>',
  lock: '<path fill-rule="evenodd" d="M7 10V7a5 5 0 0 1 10 0v3h2v12H5V10zm2 0h6V7a3 3 0 0 0-6 0z"/>',
  app: '<path fill-rule="evenodd" d="M2 4h20v16H2zm2 4v10h16V8z"/><rect x="6" y="10" width="5" height="6"/>',
  gear: '<path fill-rule="evenodd" d="M10 1h4l.6 3 2.2 1.3 2.9-1 2 3.4-2.3 2a7 7 0 0 1 0 2.6l2.3 2-2 3.4-2.9-1-2.2 1.3-.6 3h-4l-.6-3-2.2-1.3-2.9 1-2-3.4 2.3-2a7 7 0 0 1 0-2.6l-2.3-2 2-3.4 2.9 1L9.4 4zM12 8.5a3.5 3.5 0 1 0 0 7 3.5 3.5 0 0 0 0-7z"/>',
  badge: '<circle cx="12" cy="9" r="7"/><path d="M7 14.5L5 23l7-3 7 3-2-8.5a9 9 0 0 1-10 0z"/>',
  node: '<circle cx="12" cy="12" r="6"/>',
};

interface KindStyle {
  color: string;
  glyph: keyof typeof GLYPHS;
}

/** What a node of a kind looks like: its colour and its pictogram (SVG markup drawn in a viewBox). */
export interface KindLook {
  color: string;
  markup: string;
  viewBox: string;
}

const KIND_STYLES: Record<string, KindStyle> = {
  User: { color: "#2fa84f", glyph: "user" },
  Group: { color: "#c9a90f", glyph: "group" },
  Computer: { color: "#d9534f", glyph: "computer" },
  Domain: { color: "#159e8a", glyph: "domain" },
  GPO: { color: "#7b68ee", glyph: "gpo" },
  OU: { color: "#e08a00", glyph: "ou" },
  Container: { color: "#c77c5a", glyph: "container" },
  CertTemplate: { color: "#b05fc4", glyph: "certificate" },
  EnterpriseCA: { color: "#4f7fd6", glyph: "authority" },
  RootCA: { color: "#3d5fa8", glyph: "authority" },
  AIACA: { color: "#6b8fd0", glyph: "authority" },
  NTAuthStore: { color: "#5b6fb5", glyph: "store" },
  IssuancePolicy: { color: "#8a6d3b", glyph: "policy" },
  ADLocalGroup: { color: "#c9a90f", glyph: "group" },
  ADLocalUser: { color: "#2fa84f", glyph: "user" },
  AZUser: { color: "#1c9ec9", glyph: "user" },
  AZGroup: { color: "#d6577c", glyph: "group" },
  AZTenant: { color: "#2f6fd6", glyph: "cloud" },
  AZSubscription: { color: "#d6a32f", glyph: "key" },
  AZResourceGroup: { color: "#8f78d6", glyph: "container" },
  AZManagementGroup: { color: "#5f8f3d", glyph: "ou" },
  AZVM: { color: "#d66b2f", glyph: "computer" },
  AZDevice: { color: "#b3542b", glyph: "computer" },
  AZServicePrincipal: { color: "#4bb3a0", glyph: "gear" },
  AZApp: { color: "#0b8a9e", glyph: "app" },
  AZRole: { color: "#cf4d9a", glyph: "badge" },
  AZKeyVault: { color: "#b8860b", glyph: "lock" },
  AZWebApp: { color: "#3f8fb8", glyph: "app" },
  AZFunctionApp: { color: "#3f8fb8", glyph: "app" },
  AZLogicApp: { color: "#3f8fb8", glyph: "app" },
  AZAutomationAccount: { color: "#5a7f9e", glyph: "gear" },
  AZManagedCluster: { color: "#4a6fa5", glyph: "container" },
  AZContainerRegistry: { color: "#4a6fa5", glyph: "store" },
  AZVMScaleSet: { color: "#d66b2f", glyph: "computer" },
};

const FALLBACK: KindStyle = { color: "#7a8591", glyph: "node" };
const iconUrls = new Map<string, string>();
// Kinds the custom-nodes API describes (OpenGraph and other collectors): they win over the built-in looks.
const customLooks = new Map<string, KindLook>();

export function setCustomKindLooks(looks: Map<string, KindLook>): void {
  customLooks.clear();
  for (const [kind, look] of looks) customLooks.set(kind, look);
}

export function hasCustomKinds(): boolean {
  return customLooks.size > 0;
}

export function kindLook(kind: string | undefined): KindLook {
  const custom = kind ? customLooks.get(kind) : undefined;
  if (custom) return custom;
  const style = (kind && KIND_STYLES[kind]) || FALLBACK;
  return { color: style.color, markup: GLYPHS[style.glyph], viewBox: "0 0 24 24" };
}

export function kindColor(kind: string | undefined): string {
  return kindLook(kind).color;
}

/** A data URL of the kind's pictogram (black on transparent: the node program recolours it). */
export function kindIcon(kind: string | undefined): string {
  const look = kindLook(kind);
  const key = `${look.viewBox}|${look.markup}`;
  let url = iconUrls.get(key);
  if (!url) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${look.viewBox}" width="96" height="96" fill="#000">${look.markup}</svg>`;
    url = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
    iconUrls.set(key, url);
  }
  return url;
}
/** A small inline icon for lists (search results, panels). */
export function kindBadge(kind: string | undefined): HTMLElement {
  const badge = document.createElement("span");
  badge.className = "kind-badge";
  // A CSSOM property, not a style attribute: allowed by the CSP.
  badge.style.backgroundColor = kindColor(kind);
  badge.setAttribute("title", kind ?? "unknown");
  const img = document.createElement("img");
  img.src = kindIcon(kind);
  img.alt = "";
  badge.append(img);
  return badge;
}

export const KNOWN_KINDS = Object.keys(KIND_STYLES);

/** The pictogram's colour on a node of `color`: white, or near-black on a light node (the default custom
 * kind colour is white). */
export function glyphColor(color: string): string {
  const hex = color.replace("#", "");
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join("") : hex.slice(0, 6);
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16) / 255);
  if ([r, g, b].some(Number.isNaN)) return "#ffffff";
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.6 ? "#1b1f24" : "#ffffff";
}
