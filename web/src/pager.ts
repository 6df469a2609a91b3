// Previous / next over a `{count, skip, limit}` list.
import { h } from "./dom";

export function pager(count: number, skip: number, limit: number, go: (skip: number) => void, id: string): HTMLElement | null {
  if (count <= limit && skip === 0) return null;
  const last = Math.min(count, skip + limit);
  return h("nav", { class: "pager", "aria-label": "Pages", id: `${id}-pager` },
    h("button", { class: "small", disabled: skip === 0, onclick: () => go(Math.max(0, skip - limit)) }, "Previous"),
    h("span", { class: "muted" }, `${count ? skip + 1 : 0}–${last} of ${count}`),
    h("button", { class: "small", disabled: last >= count, onclick: () => go(skip + limit) }, "Next"));
}
