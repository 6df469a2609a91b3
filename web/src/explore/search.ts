// A search box that finds nodes by name or object id as the user types (GET /api/v2/search).
import { get } from "../api";
import { debounce, h, replace } from "../dom";
import { kindBadge } from "../graph/kinds";

export interface SearchHit {
  objectid: string;
  type: string;
  name: string;
  distinguishedname?: string;
  system_tags?: string;
}

let uid = 0;

export function searchBox(options: { id: string; label: string; placeholder?: string; onSelect: (hit: SearchHit) => void }): {
  element: HTMLElement;
  input: HTMLInputElement;
  set: (hit: SearchHit | null) => void;
  value: () => SearchHit | null;
} {
  const listId = `search-results-${++uid}`;
  let selected: SearchHit | null = null;
  let hits: SearchHit[] = [];
  let active = -1;
  const input = h("input", {
    id: options.id, type: "search", autocomplete: "off", spellcheck: "false", placeholder: options.placeholder ?? "Search nodes",
    role: "combobox", "aria-expanded": "false", "aria-controls": listId, "aria-autocomplete": "list",
  });
  const list = h("ul", { id: listId, class: "search-results hidden", role: "listbox", "aria-label": `${options.label} results` });

  function close(): void {
    list.classList.add("hidden");
    input.setAttribute("aria-expanded", "false");
    active = -1;
  }

  function choose(hit: SearchHit): void {
    selected = hit;
    input.value = hit.name;
    close();
    options.onSelect(hit);
  }

  function highlight(index: number): void {
    active = index;
    [...list.children].forEach((item, i) => item.setAttribute("aria-selected", String(i === index)));
  }

  const lookup = debounce(async (text: string) => {
    if (text.trim().length < 2) {
      close();
      return;
    }
    try {
      hits = (await get<{ data: SearchHit[] }>(`/search?q=${encodeURIComponent(text.trim())}&limit=10`)).data ?? [];
    } catch {
      hits = [];
    }
    if (input.value !== text) return;
    replace(list, hits.length ? hits.map((hit) => h("li", {
      role: "option", "aria-selected": "false", class: "search-hit",
      onmousedown: (event: MouseEvent) => {
        event.preventDefault();
        choose(hit);
      },
    }, kindBadge(hit.type), h("span", { class: "hit-name" }, hit.name || hit.objectid),
    h("span", { class: "hit-kind" }, hit.type))) : h("li", { class: "search-empty" }, "No match"));
    list.classList.remove("hidden");
    input.setAttribute("aria-expanded", "true");
    active = -1;
  }, 200);

  input.addEventListener("input", () => {
    selected = null;
    lookup(input.value);
  });
  input.addEventListener("keydown", (event) => {
    if (list.classList.contains("hidden") || !hits.length) return;
    if (event.key === "ArrowDown") highlight(Math.min(active + 1, hits.length - 1));
    else if (event.key === "ArrowUp") highlight(Math.max(active - 1, 0));
    else if (event.key === "Enter") choose(hits[Math.max(active, 0)]);
    else if (event.key === "Escape") close();
    else return;
    event.preventDefault();
  });
  input.addEventListener("blur", () => window.setTimeout(close, 150));

  const element = h("div", { class: "search-box" },
    h("label", { for: options.id, class: "sr-only" }, options.label), input, list);
  return {
    element, input,
    set: (hit) => {
      selected = hit;
      input.value = hit?.name ?? "";
    },
    value: () => selected,
  };
}
