// SSO providers: list, add a SAML provider from its metadata, delete.
import { api, get } from "../api";
import { formatDate, h, modal, replace, toast } from "../dom";

interface Provider {
  id: number;
  name: string;
  slug: string;
  type: string;
  created_at: string;
  login_uri?: string;
}

export function ssoSection(root: HTMLElement): void {
  const list = h("div", { id: "sso-table" });

  async function refresh(): Promise<void> {
    try {
      const providers = (await get<{ data: Provider[] }>("/sso-providers")).data ?? [];
      replace(list, providers.length ? h("table", { class: "data-table" },
        h("thead", null, h("tr", null, ["Name", "Type", "Slug", "Created", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", null, providers.map((p) => h("tr", null,
          h("td", null, p.name), h("td", null, p.type), h("td", { class: "mono" }, p.slug), h("td", null, formatDate(p.created_at)),
          h("td", null, h("button", { class: "small danger", onclick: () => void remove(p) }, "Delete")))))) :
        h("p", { class: "muted" }, "No SSO providers configured."));
    } catch (error) {
      replace(list, h("p", { class: "form-error" }, (error as Error).message));
    }
  }

  async function create(): Promise<void> {
    const name = h("input", { id: "sso-name" });
    const metadata = h("input", { id: "sso-metadata", type: "file", accept: ".xml,application/xml,text/xml" });
    if ((await modal("Add a SAML provider", [
      h("label", { for: "sso-name" }, "Name"), name,
      h("label", { for: "sso-metadata" }, "Identity provider metadata (XML)"), metadata,
    ], [{ label: "Cancel", value: "cancel" }, { label: "Add", value: "ok", primary: true }])) !== "ok") return;
    const file = metadata.files?.[0];
    if (!file) {
      toast("Choose the metadata file.", "error");
      return;
    }
    const form = new FormData();
    form.append("name", name.value);
    form.append("metadata", file);
    form.append("config.auto_provision.enabled", "false");
    form.append("config.auto_provision.default_role_id", "3");
    form.append("config.auto_provision.role_provision", "false");
    try {
      await api("POST", "/sso-providers/saml", form);
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  async function remove(provider: Provider): Promise<void> {
    if ((await modal("Delete SSO provider", `Delete ${provider.name}? Its users can no longer log in with it.`,
      [{ label: "Cancel", value: "cancel" }, { label: "Delete", value: "ok", danger: true }])) !== "ok") return;
    try {
      await api("DELETE", `/sso-providers/${provider.id}`);
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  replace(root, h("div", { class: "card" },
    h("div", { class: "row" }, h("h2", null, "SSO providers"), h("button", { class: "primary", onclick: () => void create() }, "Add SAML provider")),
    list));
  void refresh();
}
