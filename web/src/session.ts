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

// A `token` cookie is adopted only by the tab that started a single sign-on, within ten minutes: another
// site able to plant cookies for this host (a sibling subdomain, a plain-HTTP hop) would otherwise sign the
// user in as the attacker, whose session then receives what they do (login CSRF).
const SSO_PENDING_KEY = "houndgraph.sso-started";
const SSO_PENDING_MS = 10 * 60 * 1000;

export function markSsoStarted(): void {
  sessionStorage.setItem(SSO_PENDING_KEY, String(Date.now()));
}

/** Whether this tab started a single sign-on lately; the mark is spent either way. */
export function takeSsoStarted(): boolean {
  const started = Number(sessionStorage.getItem(SSO_PENDING_KEY) ?? "0");
  sessionStorage.removeItem(SSO_PENDING_KEY);
  return started > 0 && Date.now() - started < SSO_PENDING_MS;
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
