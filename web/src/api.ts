// The only way the UI talks to the service: the public /api/v2 API with a Bearer session token.
import { getToken, setToken } from "./session";

export class ApiError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
}

let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const token = getToken();
  return { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extra };
}

async function errorOf(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    message = body?.errors?.map((e: { message: string }) => e.message).join("; ") || message;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(response.status, message);
}

export async function request(method: string, path: string, body?: unknown, init: RequestInit = {}): Promise<Response> {
  const isRaw = body instanceof Blob || body instanceof FormData;
  const { headers: extra, ...rest } = init;
  const response = await fetch(`/api/v2${path}`, {
    ...rest,
    method,
    headers: {
      ...headers(body === undefined || isRaw ? {} : { "Content-Type": "application/json" }),
      ...(extra as Record<string, string> | undefined),
    },
    body: body === undefined ? undefined : isRaw ? (body as BodyInit) : JSON.stringify(body),
  });
  if (response.status === 401 && path !== "/login") {
    setToken(null);
    onUnauthorized();
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

export async function api<T = any>(method: string, path: string, body?: unknown, init?: RequestInit): Promise<T> {
  const response = await request(method, path, body, init);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export const get = <T = any>(path: string, init?: RequestInit) => api<T>("GET", path, undefined, init);

/** An upload with progress events (fetch has none for request bodies). */
export function upload(path: string, file: Blob, contentType: string, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/v2${path}`);
    const token = getToken();
    if (token) xhr.setRequestHeader("Authorization", `Bearer ${token}`);
    xhr.setRequestHeader("Content-Type", contentType);
    xhr.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve();
      else {
        let message = `${xhr.status}`;
        try {
          message = JSON.parse(xhr.responseText).errors.map((e: { message: string }) => e.message).join("; ");
        } catch {
          // keep the status
        }
        reject(new ApiError(xhr.status, message));
      }
    };
    xhr.onerror = () => reject(new ApiError(0, "network error"));
    xhr.send(file);
  });
}

export interface Self {
  id: string;
  principal_name: string;
  roles: { name: string; permissions: { authority: string; name: string }[] }[];
}

export function hasPermission(self: Self | null, authority: string, name: string): boolean {
  return !!self?.roles.some((role) => role.permissions.some((p) => p.authority === authority && p.name === name));
}
