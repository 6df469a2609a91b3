import "./styles.css";

import { api, ApiError, get, setUnauthorizedHandler, type Self } from "./api";
import { h, replace } from "./dom";
import { getTheme, getToken, setTheme, setToken, takeSsoStarted } from "./session";

export interface AppContext {
  self: Self;
  navigate: (path: string) => void;
  signOut: () => Promise<void>;
}

type Page = (root: HTMLElement, context: AppContext, path: string) => void | (() => void);

const NAV: { path: string; label: string; load: () => Promise<Page> }[] = [
  { path: "/explore", label: "Explore", load: async () => (await import("./explore/page")).explorePage },
  { path: "/attack-paths", label: "Attack Paths", load: async () => (await import("./attackPaths/page")).attackPathsPage },
  { path: "/posture", label: "Posture", load: async () => (await import("./pages/posture")).posturePage },
  { path: "/collection", label: "Collection", load: async () => (await import("./collection/page")).collectionPage },
  { path: "/zones", label: "Privilege Zones", load: async () => (await import("./zones/page")).zonesPage },
  { path: "/data-quality", label: "Data Quality", load: async () => (await import("./pages/dataQuality")).dataQualityPage },
  { path: "/audit", label: "Audit Log", load: async () => (await import("./pages/audit")).auditPage },
  { path: "/administration", label: "Administration", load: async () => (await import("./admin/page")).adminPage },
];

const app = document.getElementById("app")!;
let cleanup: (() => void) | void;
let self: Self | null = null;

function currentPath(): string {
  const path = location.pathname.replace(/^\/ui/, "") || "/";
  return path === "/" ? "/explore" : path;
}

export function navigate(path: string): void {
  if (location.pathname !== `/ui${path}`) history.pushState(null, "", `/ui${path}`);
  void render();
}

async function signOut(): Promise<void> {
  try {
    await api("POST", "/logout").catch(() => undefined);
  } finally {
    setToken(null);
    self = null;
    window.clearTimeout(datapipeTimer);
    datapipeTimer = undefined;
    navigate("/login");
  }
}

function themeToggle(): HTMLElement {
  const button = h("button", {
    class: "icon-button", id: "theme-toggle", "aria-label": "Switch theme", title: "Switch light/dark theme",
    onclick: () => {
      setTheme(getTheme() === "dark" ? "light" : "dark");
      button.textContent = getTheme() === "dark" ? "☀" : "☾";
    },
  }, getTheme() === "dark" ? "☀" : "☾");
  return button;
}

// The datapipe's state (ingesting, analyzing, purging) while it is busy, polled while someone is signed in.
const datapipeChip = h("span", { class: "chip hidden", id: "datapipe-status", role: "status" });
let datapipeTimer: number | undefined;

async function pollDatapipe(): Promise<void> {
  window.clearTimeout(datapipeTimer);
  datapipeTimer = undefined;
  if (!getToken()) return;
  datapipeTimer = 0;
  try {
    const status = (await get<{ data: { status: string } }>("/datapipe/status")).data.status;
    datapipeChip.textContent = status.charAt(0).toUpperCase() + status.slice(1) + "…";
    datapipeChip.classList.toggle("hidden", status === "idle");
  } catch {
    datapipeChip.classList.add("hidden");
  }
  datapipeTimer = getToken() ? window.setTimeout(() => void pollDatapipe(), 5000) : undefined;
}

function shell(path: string): { main: HTMLElement } {
  const main = h("main", { id: "main", tabindex: "-1" });
  const links = NAV.map((item) =>
    h("a", {
      href: `/ui${item.path}`, class: path.startsWith(item.path) ? "active" : "",
      "aria-current": path.startsWith(item.path) ? "page" : null,
      onclick: (event: MouseEvent) => {
        event.preventDefault();
        navigate(item.path);
      },
    }, item.label));
  const header = h("header", { class: "topbar" },
    h("a", { class: "brand", href: "/ui/explore", onclick: (e: MouseEvent) => { e.preventDefault(); navigate("/explore"); } },
      h("img", { src: "/ui/favicon.svg", alt: "" }), "houndgraph"),
    h("nav", { "aria-label": "Main" }, links),
    h("div", { class: "topbar-right" },
      datapipeChip,
      themeToggle(),
      h("span", { class: "user-name", title: "Signed in user" }, self?.principal_name ?? ""),
      h("button", { id: "logout", onclick: () => void signOut() }, "Log out")));
  replace(app, header, main);
  return { main };
}

async function render(): Promise<void> {
  if (typeof cleanup === "function") cleanup();
  cleanup = undefined;
  const path = currentPath();
  if (!getToken()) {
    const { loginPage } = await import("./pages/login");
    replace(app);
    cleanup = loginPage(app, async () => {
      self = null;
      navigate(path === "/login" ? "/explore" : path);
    }, new URLSearchParams(location.search).get("error"));
    if (path !== "/login") history.replaceState(null, "", "/ui/login");
    return;
  }
  if (path === "/login") {
    navigate("/explore");
    return;
  }
  if (!self) {
    try {
      self = (await get<{ data: Self }>("/self")).data;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      throw error;
    }
  }
  if (datapipeTimer === undefined) void pollDatapipe();
  const item = NAV.find((entry) => path.startsWith(entry.path)) ?? NAV[0];
  const { main } = shell(path);
  const page = await item.load();
  const context: AppContext = { self, navigate, signOut };
  cleanup = page(main, context, path);
  document.title = `${item.label} · houndgraph`;
}

// An SSO sign-in ends on /ui/ with the session in a `token` cookie, as the reference sets it: the UI takes
// it into its own storage and deletes the cookie, so the API keeps seeing only the Bearer header. Only a
// sign-in this tab started is taken (`takeSsoStarted`); any other `token` cookie is deleted unread.
function adoptSsoSession(): void {
  const cookie = document.cookie.split("; ").find((part) => part.startsWith("token="));
  if (!cookie) return;
  const token = decodeURIComponent(cookie.slice("token=".length));
  document.cookie = "token=; Max-Age=0; path=/; SameSite=Strict";
  if (token && takeSsoStarted()) setToken(token);
}

adoptSsoSession();
setTheme(getTheme());
setUnauthorizedHandler(() => {
  self = null;
  void render();
});
window.addEventListener("popstate", () => void render());
void render();

