/** A small JSON client for setting up benchmark and fault-run fixtures over real HTTP. */

export interface JsonResponse {
  status: number;
  body: any;
  headers: Headers;
}

export interface RequestOptions {
  body?: unknown;
  auth?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async request(method: string, path: string, options: RequestOptions = {}): Promise<JsonResponse> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.auth) headers.authorization = `Bearer ${options.auth}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body, headers: res.headers };
  }

  /** Like request, but throws unless the status is one of `expected`. */
  async expect(
    expected: number | number[],
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<any> {
    const res = await this.request(method, path, options);
    const ok = Array.isArray(expected) ? expected.includes(res.status) : res.status === expected;
    if (!ok)
      throw new Error(
        `${method} ${path} → ${res.status}: ${typeof res.body === 'string' ? res.body : JSON.stringify(res.body)}`,
      );
    return res.body;
  }
}
