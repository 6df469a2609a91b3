// Collection: SharpHound / AzureHound clients, their schedules and their jobs. Each is a route under /collection/.
import { h, replace } from "../dom";
import type { AppContext } from "../main";
import { clientsSection } from "./clients";
import { jobsSection } from "./jobs";
import { schedulesSection } from "./schedules";

type Section = (root: HTMLElement, context: AppContext) => void | (() => void);

const SECTIONS: { slug: string; label: string; render: Section }[] = [
  { slug: "clients", label: "Clients", render: clientsSection },
  { slug: "schedules", label: "Schedules", render: schedulesSection },
  { slug: "jobs", label: "Jobs", render: jobsSection },
];

export function collectionPage(root: HTMLElement, context: AppContext, path: string): void | (() => void) {
  const slug = path.split("/")[2] ?? SECTIONS[0].slug;
  const section = SECTIONS.find((s) => s.slug === slug) ?? SECTIONS[0];
  const body = h("div");
  replace(root, h("div", { class: "admin" },
    h("nav", { class: "admin-nav", "aria-label": "Collection" }, SECTIONS.map((s) => h("a", {
      href: `/ui/collection/${s.slug}`, class: s === section ? "active" : "", "aria-current": s === section ? "page" : null,
      onclick: (event: MouseEvent) => {
        event.preventDefault();
        context.navigate(`/collection/${s.slug}`);
      },
    }, s.label))),
    h("section", { class: "admin-content", "aria-labelledby": "collection-title" },
      h("h1", { id: "collection-title" }, `Collection · ${section.label}`), body)));
  return section.render(body, context);
}
