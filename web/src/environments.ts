// The collected AD domains and Azure tenants (GET /available-domains), for the pages that show one at a time.
import { get } from "./api";
import { h } from "./dom";

export interface Environment {
  type: string;
  name: string;
  id: string;
  collected: boolean;
}

export const isAzure = (environment: Environment) => environment.type === "azure";
export const environmentLabel = (environment: Environment) =>
  `${environment.name} (${isAzure(environment) ? "Azure tenant" : "AD domain"})`;

export async function listEnvironments(): Promise<Environment[]> {
  const environments = (await get<{ data: Environment[] | null }>("/available-domains")).data ?? [];
  return environments.sort((a, b) => a.name.localeCompare(b.name));
}

/** A labelled select of environments; `all` adds a first option with the empty value. */
export function environmentSelect(id: string, environments: Environment[], selected: string | null,
  onChange: (value: string) => void, all?: string): HTMLElement {
  const select = h("select", { id, onchange: () => onChange(select.value) },
    all ? h("option", { value: "" }, all) : null,
    environments.map((e) => h("option", { value: e.id, selected: e.id === selected }, environmentLabel(e))));
  return h("div", { class: "field-inline" }, h("label", { for: id }, "Domain or tenant"), select);
}
