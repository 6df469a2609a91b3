// Font Awesome's free solid icons by name, the names the custom-nodes API's `font-awesome` icons use. A chunk
// of its own: loaded only when a custom kind exists.
import { fas } from "@fortawesome/free-solid-svg-icons";

import type { KindLook } from "./kinds";

type Icon = { iconName: string; icon: [number, number, unknown, unknown, string | string[]] };

let byName: Map<string, Icon> | null = null;

function kebab(exportName: string): string {
  return exportName.replace(/^fa/, "").replace(/([a-z0-9])([A-Z])/g, "$1-$2").replace(/([A-Z])([A-Z][a-z])/g, "$1-$2").toLowerCase();
}

/** The icon's look, or null for a name Font Awesome's free solid set does not have. */
export function fontAwesomeLook(name: string, color: string): KindLook | null {
  if (!byName) {
    byName = new Map();
    for (const [exportName, icon] of Object.entries(fas as unknown as Record<string, Icon>)) {
      byName.set(icon.iconName, icon);
      byName.set(kebab(exportName), icon);  // aliases: faHome is house
    }
  }
  const icon = byName.get(name.replace(/^fa-/, "").trim().toLowerCase());
  if (!icon) return null;
  const [width, height, , , data] = icon.icon;
  const paths = (Array.isArray(data) ? data : [data]).map((d) => `<path d="${d}"/>`).join("");
  // A square viewBox centred on the glyph, so narrow icons are not stretched.
  const side = Math.max(width, height);
  return { color, markup: paths, viewBox: `${(width - side) / 2} ${(height - side) / 2} ${side} ${side}` };
}
