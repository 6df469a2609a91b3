// API tokens of the signed-in user: create (the key is shown once), list, delete.
import { api, get } from "../api";
import { formatDate, h, modal, replace, toast } from "../dom";

interface Token {
  id: string;
  name: { string: string } | string;
  key?: string;
  last_access?: string;
  created_at: string;
}

const nameOf = (token: Token) => (typeof token.name === "string" ? token.name : token.name?.string ?? "");

export function tokensSection(root: HTMLElement): void {
  const list = h("div", { id: "tokens-table" });

  async function refresh(): Promise<void> {
    try {
      const tokens = (await get<{ data: { tokens: Token[] } }>("/tokens")).data.tokens;
      replace(list, tokens.length ? h("table", { class: "data-table" },
        h("thead", null, h("tr", null, ["Name", "ID", "Created", "Last used", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", null, tokens.map((token) => h("tr", { "data-token": nameOf(token) },
          h("td", null, nameOf(token)), h("td", { class: "mono" }, token.id), h("td", null, formatDate(token.created_at)),
          h("td", null, formatDate(token.last_access)),
          h("td", null, h("button", { class: "small danger", "aria-label": `Delete token ${nameOf(token)}`, onclick: () => void remove(token) }, "Delete")))))) :
        h("p", { class: "muted" }, "No API tokens."));
    } catch (error) {
      replace(list, h("p", { class: "form-error" }, (error as Error).message));
    }
  }

  async function create(): Promise<void> {
    const name = h("input", { id: "token-name", required: true });
    if ((await modal("Create API token", [h("label", { for: "token-name" }, "Token name"), name],
      [{ label: "Cancel", value: "cancel" }, { label: "Create", value: "ok", primary: true }])) !== "ok" || !name.value.trim()) return;
    try {
      const token = (await api<{ data: Token }>("POST", "/tokens", { token_name: name.value.trim() })).data;
      await modal("Your new API token", [
        h("p", null, "Copy the key now: it will not be shown again."),
        h("dl", { class: "token-secret" },
          h("dt", null, "Token ID"), h("dd", { class: "mono", id: "new-token-id" }, token.id),
          h("dt", null, "Token key"), h("dd", { class: "mono", id: "new-token-key" }, token.key ?? "")),
      ], [{ label: "I have copied it", value: "ok", primary: true }]);
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  async function remove(token: Token): Promise<void> {
    if ((await modal("Delete API token", `Delete the token “${nameOf(token)}”? Scripts using it stop working.`,
      [{ label: "Cancel", value: "cancel" }, { label: "Delete", value: "ok", danger: true }])) !== "ok") return;
    try {
      await api("DELETE", `/tokens/${token.id}`);
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  replace(root, h("div", { class: "card" },
    h("div", { class: "row" }, h("h2", null, "My API tokens"), h("button", { class: "primary", id: "create-token", onclick: () => void create() }, "Create token")),
    h("p", { class: "muted" }, "Tokens sign requests for scripts and collectors (HMAC, as BloodHound clients do)."),
    list));
  void refresh();
}
