/** An error answer of the API: `{ error: { code, message, field? } }` with its HTTP status. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;

  constructor(status: number, code: string, message: string, field?: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

const TOKEN_KEY = 'hedgehop.token';

interface ErrorPayload {
  readonly error?: { readonly code?: string; readonly message?: string; readonly field?: string };
}

/** Query values; undefined ones are left out. */
export type QueryValues = Readonly<Record<string, string | number | undefined>>;

function withQuery(path: string, query: QueryValues | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** Percent-encodes one path segment (agent names and line ids may hold any character). */
export const seg = (value: string | number): string => encodeURIComponent(String(value));

/**
 * Calls the same-origin API. The bearer token (when the server wants one) is kept in
 * sessionStorage only, so it is forgotten when the tab closes.
 */
export class ApiClient {
  #token: string | undefined;

  constructor() {
    this.#token = sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  }

  /** True when a token was entered in this tab. */
  hasToken(): boolean {
    return this.#token !== undefined;
  }

  setToken(token: string): void {
    this.#token = token;
    sessionStorage.setItem(TOKEN_KEY, token);
  }

  #headers(json: boolean): Headers {
    const headers = new Headers({ accept: 'application/json' });
    if (json) headers.set('content-type', 'application/json');
    if (this.#token) headers.set('authorization', `Bearer ${this.#token}`);
    return headers;
  }

  async #send<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const init: RequestInit = { method, headers: this.#headers(body !== undefined) };
    if (body !== undefined) init.body = JSON.stringify(body);
    if (signal) init.signal = signal;
    const response = await fetch(path, init);
    const payload = (await response.json().catch(() => ({}))) as unknown;
    if (!response.ok) {
      const error = (payload as ErrorPayload).error ?? {};
      throw new ApiError(
        response.status,
        error.code ?? `HTTP_${response.status}`,
        error.message ?? response.statusText,
        error.field,
      );
    }
    return payload as T;
  }

  get<T>(path: string, query?: QueryValues, signal?: AbortSignal): Promise<T> {
    return this.#send<T>('GET', withQuery(path, query), undefined, signal);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.#send<T>('POST', path, body);
  }

  /**
   * Follows `/api/events` (server-sent events, read through fetch so the token header can be
   * sent). Calls `onOpen` once connected and `onChange` for each `change` event; resolves false
   * when the server does not watch. Stops when `signal` aborts.
   */
  async follow(onChange: () => void, onOpen: () => void, signal: AbortSignal): Promise<boolean> {
    const response = await fetch('/api/events', { headers: this.#headers(false), signal });
    if (!response.ok || !response.body) return false;
    onOpen();
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (/^event: ?change$/m.test(block)) onChange();
        end = buffer.indexOf('\n\n');
      }
    }
  }
}

/** The one client of the page. */
export const api = new ApiClient();
