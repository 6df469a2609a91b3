// Login with a password, or with one of the SSO providers (SAML or OIDC) listed as buttons from the public
// provider list; when the service answers auth_expired, the password must be changed first.
import { api, ApiError, get } from "../api";
import { h, replace } from "../dom";
import { markSsoStarted, setToken } from "../session";

interface LoginAnswer {
  data: { user_id: string; auth_expired: boolean; session_token: string };
}

interface AuthProvider {
  name: string;
  type: string;
  login_uri: string;
}

/** The SSO providers anyone may pick before signing in: each button starts that provider's sign-in. */
async function ssoButtons(host: HTMLElement): Promise<void> {
  try {
    const providers = (await get<{ data: AuthProvider[] }>("/sso-providers")).data ?? [];
    if (!providers.length) return;
    replace(host, h("p", { class: "login-divider muted" }, "or"),
      providers.map((provider) => h("a", {
        class: "button sso-button", href: provider.login_uri, "data-provider": provider.name,
        "data-type": provider.type, onclick: () => markSsoStarted(),
      }, `Log in with ${provider.name}`)));
  } catch {
    // no SSO list: the password form alone
  }
}

export function loginPage(root: HTMLElement, done: () => void, ssoError: string | null = null): void {
  const error = h("p", { class: "form-error", role: "alert" }, ssoError ? `Single sign-on failed: ${ssoError}` : "");
  const sso = h("div", { class: "sso-buttons", id: "sso-buttons" });
  const username = h("input", { id: "login-username", name: "username", autocomplete: "username", required: true });
  const password = h("input", { id: "login-password", name: "password", type: "password", autocomplete: "current-password", required: true });
  const submit = h("button", { type: "submit", class: "primary", id: "login-submit" }, "Log in");
  const form = h("form", {
    class: "card login-card", "aria-label": "Log in",
    onsubmit: async (event: SubmitEvent) => {
      event.preventDefault();
      submit.disabled = true;
      error.textContent = "";
      try {
        const answer = await api<LoginAnswer>("POST", "/login", {
          login_method: "secret", username: username.value, secret: password.value,
        });
        if (answer.data.auth_expired) {
          changePassword(root, answer.data, password.value, done);
        } else {
          setToken(answer.data.session_token);
          done();
        }
      } catch (e) {
        error.textContent = e instanceof ApiError && e.status === 401 ? "Wrong user name or password." : String((e as Error).message);
      } finally {
        submit.disabled = false;
      }
    },
  },
  h("h1", null, "houndgraph"),
  h("p", { class: "muted" }, "Attack-path analysis for Active Directory and Azure"),
  h("label", { for: "login-username" }, "User name"), username,
  h("label", { for: "login-password" }, "Password"), password,
  error, submit, sso);
  replace(root, h("div", { class: "login-screen" }, form));
  username.focus();
  void ssoButtons(sso);
}

function changePassword(root: HTMLElement, login: LoginAnswer["data"], current: string, done: () => void): void {
  const error = h("p", { class: "form-error", role: "alert" });
  const next = h("input", { id: "new-password", type: "password", autocomplete: "new-password", required: true, minlength: 12 });
  const again = h("input", { id: "new-password-again", type: "password", autocomplete: "new-password", required: true });
  const form = h("form", {
    class: "card login-card", "aria-label": "Change password",
    onsubmit: async (event: SubmitEvent) => {
      event.preventDefault();
      if (next.value !== again.value) {
        error.textContent = "The two passwords differ.";
        return;
      }
      setToken(login.session_token);
      try {
        await api("PUT", `/bloodhound-users/${login.user_id}/secret`, {
          current_secret: current, secret: next.value, needs_password_reset: false,
        });
        done();
      } catch (e) {
        setToken(null);
        error.textContent = (e as Error).message;
      }
    },
  },
  h("h1", null, "Choose a new password"),
  h("p", { class: "muted" }, "Your password has expired. Choose a new one: 12 characters or more, with upper case, lower case, digits or symbols."),
  h("label", { for: "new-password" }, "New password"), next,
  h("label", { for: "new-password-again" }, "New password again"), again,
  error, h("button", { type: "submit", class: "primary" }, "Change password"));
  replace(root, h("div", { class: "login-screen" }, form));
  next.focus();
}
