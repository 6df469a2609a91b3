// Users and roles: list, create, enable/disable, change role, delete.
import { api, get } from "../api";
import { formatDate, h, modal, replace, toast } from "../dom";
import type { AppContext } from "../main";

interface Role {
  id: number;
  name: string;
  description: string;
}

interface User {
  id: string;
  principal_name: string;
  first_name: { string: string };
  last_name: { string: string };
  email_address: { string: string };
  is_disabled: boolean;
  last_login: string;
  roles: Role[];
}

export function usersSection(root: HTMLElement, context: AppContext): void {
  const table = h("div", { id: "users-table" });
  let roles: Role[] = [];

  const loadRoles = async () => {
    roles = (await get<{ data: { roles: Role[] } }>("/roles")).data.roles;
  };

  async function refresh(): Promise<void> {
    try {
      await loadRoles();
      const users = (await get<{ data: { users: User[] } }>("/bloodhound-users")).data.users;
      replace(table, h("table", { class: "data-table" },
        h("thead", null, h("tr", null, ["User", "Name", "Email", "Role", "Status", "Last login", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", null, users.map((user) => h("tr", { "data-user": user.principal_name },
          h("td", null, user.principal_name),
          h("td", null, `${user.first_name?.string ?? ""} ${user.last_name?.string ?? ""}`),
          h("td", null, user.email_address?.string ?? ""),
          h("td", null, roleSelect(user)),
          h("td", null, user.is_disabled ? "Disabled" : "Active"),
          h("td", null, formatDate(user.last_login)),
          h("td", null, user.id === context.self.id ? h("span", { class: "muted" }, "you") : h("div", { class: "row-actions" },
            h("button", { class: "small", onclick: () => void update(user, { is_disabled: !user.is_disabled }) }, user.is_disabled ? "Enable" : "Disable"),
            h("button", { class: "small", onclick: () => void resetPassword(user) }, "Set password"),
            h("button", { class: "small danger", onclick: () => void remove(user) }, "Delete"))))))));
    } catch (error) {
      replace(table, h("p", { class: "form-error" }, (error as Error).message));
    }
  }

  function roleSelect(user: User): HTMLElement {
    const select = h("select", {
      "aria-label": `Role of ${user.principal_name}`, disabled: user.id === context.self.id,
      onchange: () => void update(user, { roles: [Number(select.value)] }),
    }, roles.map((role) => h("option", { value: role.id }, role.name)));
    select.value = String(user.roles[0]?.id ?? "");
    return select;
  }

  async function update(user: User, change: Record<string, unknown>): Promise<void> {
    try {
      await api("PATCH", `/bloodhound-users/${user.id}`, change);
      toast(`Updated ${user.principal_name}.`);
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  async function resetPassword(user: User): Promise<void> {
    const secret = h("input", { id: "user-secret", type: "password", autocomplete: "new-password" });
    const force = h("input", { id: "user-force-reset", type: "checkbox", checked: true });
    if ((await modal(`Set the password of ${user.principal_name}`, [
      h("label", { for: "user-secret" }, "New password"), secret,
      h("label", { class: "check" }, force, "Ask for a new password at next login"),
    ], [{ label: "Cancel", value: "cancel" }, { label: "Set password", value: "ok", primary: true }])) !== "ok") return;
    try {
      await api("PUT", `/bloodhound-users/${user.id}/secret`, { secret: secret.value, needs_password_reset: force.checked });
      toast("Password set.");
    } catch (error) {
      toast((error as Error).message, "error");
    }
  }

  async function remove(user: User): Promise<void> {
    if ((await modal("Delete user", `Delete ${user.principal_name}? This cannot be undone.`,
      [{ label: "Cancel", value: "cancel" }, { label: "Delete", value: "ok", danger: true }])) !== "ok") return;
    try {
      await api("DELETE", `/bloodhound-users/${user.id}`);
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  async function create(): Promise<void> {
    if (!roles.length) await loadRoles();
    const field = (id: string, label: string, type = "text") => {
      const input = h("input", { id, type, autocomplete: "off" });
      return { input, nodes: [h("label", { for: id }, label), input] };
    };
    const principal = field("new-user-principal", "User name");
    const first = field("new-user-first", "First name");
    const last = field("new-user-last", "Last name");
    const email = field("new-user-email", "Email", "email");
    const secret = field("new-user-secret", "Initial password", "password");
    const role = h("select", { id: "new-user-role" }, roles.map((r) => h("option", { value: r.id }, r.name)));
    const reset = h("input", { type: "checkbox", checked: true });
    if ((await modal("Create user", [principal.nodes, first.nodes, last.nodes, email.nodes, secret.nodes,
      h("label", { for: "new-user-role" }, "Role"), role,
      h("label", { class: "check" }, reset, "Ask for a new password at first login")],
    [{ label: "Cancel", value: "cancel" }, { label: "Create", value: "ok", primary: true }])) !== "ok") return;
    try {
      await api("POST", "/bloodhound-users", {
        principal: principal.input.value, first_name: first.input.value, last_name: last.input.value,
        email_address: email.input.value, secret: secret.input.value, needs_password_reset: reset.checked,
        roles: [Number(role.value)],
      });
      toast(`Created ${principal.input.value}.`);
    } catch (error) {
      toast((error as Error).message, "error");
    }
    await refresh();
  }

  replace(root, h("div", { class: "card" },
    h("div", { class: "row" }, h("h2", null, "Users"), h("button", { class: "primary", id: "create-user", onclick: () => void create() }, "Create user")),
    table));
  void refresh();
}
