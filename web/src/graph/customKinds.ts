// The looks of custom node kinds (`GET /api/v2/custom-nodes`): each kind's Font Awesome icon and colour.
// Read once per page load; the icon set is fetched only when there is a custom kind to draw.
import { get } from "../api";
import { setCustomKindLooks, type KindLook } from "./kinds";

interface CustomKind {
  kindName: string;
  config: { icon?: { type?: string; name?: string; color?: string } };
}

const FALLBACK_COLOR = "#ffffff";
let loading: Promise<boolean> | null = null;

async function load(): Promise<boolean> {
  let kinds: CustomKind[] = [];
  try {
    kinds = (await get<{ data: CustomKind[] }>("/custom-nodes")).data ?? [];
  } catch {
    return false;  // drawn with the built-in looks
  }
  if (!kinds.length) return false;
  const { fontAwesomeLook } = await import("./fontAwesome");
  const looks = new Map<string, KindLook>();
  for (const kind of kinds) {
    const icon = kind.config.icon ?? {};
    const color = /^#[0-9a-f]{3}([0-9a-f]{3})?$/i.test(icon.color ?? "") ? icon.color! : FALLBACK_COLOR;
    const look = icon.name ? fontAwesomeLook(icon.name, color) : null;
    looks.set(kind.kindName, look ?? { color, markup: '<circle cx="12" cy="12" r="6"/>', viewBox: "0 0 24 24" });
  }
  setCustomKindLooks(looks);
  return true;
}

/** Loads the custom kinds' looks; true when there are some (the drawn graph should be restyled). */
export function loadCustomKinds(): Promise<boolean> {
  loading ??= load();
  return loading;
}

