// A tiny element builder: the UI is plain DOM, no framework. Never sets a `style` attribute (the CSP forbids
// inline styles): looks come from classes in styles.css.

export type Child = Node | string | number | null | undefined | false | Child[];
type Handler = (event: any) => void;
export type Attrs = Record<string, string | number | boolean | Handler | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2).toLowerCase(), value as EventListener);
    } else if (name === "value" && "value" in element) {
      (element as HTMLInputElement).value = String(value);
    } else if (name === "checked" && element instanceof HTMLInputElement) {
      element.checked = Boolean(value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: (SVGElement | string)[]) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child);
  return element;
}

export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.length ? value.map(formatValue).join(", ") : "—";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

export function formatDate(value: string | null | undefined): string {
  if (!value || value.startsWith("0001-")) return "—";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString();
}

/** For a view that loads again whenever asked (a filter changed, a refresh after an analysis): each call starts a
 * load and gives a check that holds while no newer load has started, so an answer overtaken by a newer one is
 * dropped whatever order the answers arrive in. */
export function latestOnly(): () => () => boolean {
  let latest = 0;
  return () => {
    const mine = ++latest;
    return () => mine === latest;
  };
}

export function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number): (...args: A) => void {
  let timer: number | undefined;
  return (...args: A) => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => fn(...args), ms);
  };
}

export function download(filename: string, content: Blob): void {
  const url = URL.createObjectURL(content);
  const link = h("a", { href: url, download: filename, class: "hidden" });
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A transient message at the bottom of the screen (role=status for screen readers). */
export function toast(message: string, kind: "info" | "error" = "info"): void {
  let host = document.getElementById("toasts");
  if (!host) {
    host = h("div", { id: "toasts", role: "status", "aria-live": "polite" });
    document.body.append(host);
  }
  const item = h("div", { class: `toast toast-${kind}` }, message);
  host.append(item);
  window.setTimeout(() => item.remove(), kind === "error" ? 8000 : 4000);
}

/** A modal dialog built on <dialog>; resolves when it closes. */
export function modal(title: string, body: Child, actions: { label: string; value: string; primary?: boolean; danger?: boolean }[]): Promise<string> {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "modal", "aria-label": title },
      h("h2", null, title),
      h("div", { class: "modal-body" }, body),
      h("form", { method: "dialog", class: "modal-actions" },
        actions.map((a) => h("button", {
          value: a.value, class: a.danger ? "danger" : a.primary ? "primary" : "",
        }, a.label))));
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue || "cancel");
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
