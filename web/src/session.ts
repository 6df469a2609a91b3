// The session token lives in this origin's localStorage, as the reference UI keeps it ("persistedState"):
// other origins cannot read it, the CSP allows no foreign script, and the API takes it only as a Bearer
// header (never a cookie), so no cross-site request can carry it.

const KEY = "houndgraph.session";
const THEME_KEY = "houndgraph.theme";

export function getToken(): string | null {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? "null")?.token ?? null;
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  if (token) localStorage.setItem(KEY, JSON.stringify({ token }));
  else localStorage.removeItem(KEY);
}

export type Theme = "light" | "dark";

export function getTheme(): Theme {
  const saved = localStorage.getItem(THEME_KEY);
  if (saved === "light" || saved === "dark") return saved;
  return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export function setTheme(theme: Theme): void {
  localStorage.setItem(THEME_KEY, theme);
  document.documentElement.dataset.theme = theme;
  window.dispatchEvent(new CustomEvent("themechange", { detail: theme }));
}
