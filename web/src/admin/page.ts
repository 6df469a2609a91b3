// Administration: file ingest, users and roles, API tokens, SSO providers, configuration and feature flags,
// database management. Each section is a route under /administration/.
import { h, replace } from "../dom";
import type { AppContext } from "../main";
import { configSection } from "./config";
import { databaseSection } from "./database";
import { ingestSection } from "./ingest";
import { ssoSection } from "./sso";
import { tokensSection } from "./tokens";
import { usersSection } from "./users";

type Section = (root: HTMLElement, context: AppContext) => void | (() => void);

const SECTIONS: { slug: string; label: string; render: Section }[] = [
  { slug: "file-ingest", label: "File Ingest", render: ingestSection },
  { slug: "users", label: "Users", render: usersSection },
  { slug: "api-tokens", label: "API Tokens", render: tokensSection },
  { slug: "sso", label: "SSO Configuration", render: ssoSection },
  { slug: "configuration", label: "Configuration", render: configSection },
  { slug: "database", label: "Database Management", render: databaseSection },
];

export function adminPage(root: HTMLElement, context: AppContext, path: string): void | (() => void) {
  const slug = path.split("/")[2] ?? SECTIONS[0].slug;
  const section = SECTIONS.find((s) => s.slug === slug) ?? SECTIONS[0];
  const content = h("section", { class: "admin-content", "aria-labelledby": "admin-title" },
    h("h1", { id: "admin-title" }, section.label));
  const body = h("div");
  content.append(body);
  replace(root, h("div", { class: "admin" },
    h("nav", { class: "admin-nav", "aria-label": "Administration" }, SECTIONS.map((s) => h("a", {
      href: `/ui/administration/${s.slug}`, class: s === section ? "active" : "", "aria-current": s === section ? "page" : null,
      onclick: (event: MouseEvent) => {
        event.preventDefault();
        context.navigate(`/administration/${s.slug}`);
      },
    }, s.label))),
    content));
  return section.render(body, context);
}
