// Configuration parameters (JSON values) and feature flags.
import { api, get } from "../api";
import { h, replace, toast } from "../dom";

interface Parameter {
  key: string;
  name: string;
  description: string;
  value: Record<string, unknown>;
}

interface Flag {
  id: number;
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  user_updatable: boolean;
}

export function configSection(root: HTMLElement): void {
  const params = h("div", { id: "config-params" });
  const flags = h("div", { id: "feature-flags" });

  async function refresh(): Promise<void> {
    try {
      const parameters = (await get<{ data: Parameter[] }>("/config")).data;
      replace(params, parameters.map((p) => {
        const id = `config-${p.key.replace(/[^a-z0-9]/gi, "-")}`;
        const text = JSON.stringify(p.value, null, 2);
        const editor = h("textarea", { id, class: "mono", rows: Math.min(12, text.split("\n").length), spellcheck: "false" });
        editor.value = text;
        return h("div", { class: "config-item" },
          h("label", { for: id }, h("strong", null, p.name), " ", h("code", null, p.key)),
          h("p", { class: "muted" }, p.description), editor,
          h("button", {
            class: "small", onclick: async () => {
              try {
                await api("PUT", "/config", { key: p.key, value: JSON.parse(editor.value) });
                toast(`Saved ${p.name}.`);
              } catch (error) {
                toast((error as Error).message, "error");
              }
            },
          }, "Save"));
      }));
      const list = (await get<{ data: Flag[] }>("/features")).data;
      replace(flags, h("ul", { class: "flag-list" }, list.map((flag) => {
        const box = h("input", {
          type: "checkbox", id: `flag-${flag.id}`, checked: flag.enabled, disabled: !flag.user_updatable,
          onchange: async () => {
            try {
              await api("PUT", `/features/${flag.id}/toggle`);
              toast(`${flag.name}: ${box.checked ? "on" : "off"}.`);
            } catch (error) {
              box.checked = !box.checked;
              toast((error as Error).message, "error");
            }
          },
        });
        return h("li", null, h("label", { class: "check", for: `flag-${flag.id}` }, box, h("strong", null, flag.name)),
          h("p", { class: "muted" }, flag.description, flag.user_updatable ? "" : " (not changeable here)"));
      })));
    } catch (error) {
      replace(params, h("p", { class: "form-error" }, (error as Error).message));
    }
  }

  replace(root,
    h("div", { class: "card" }, h("h2", null, "Parameters"), params),
    h("div", { class: "card" }, h("h2", null, "Feature flags"), flags));
  void refresh();
}
