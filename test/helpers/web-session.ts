/**
 * A browser's part of signing in, over plain HTTP (redirects followed by hand, one cookie jar):
 * through /login, the embedded provider's sign-in page and /auth/callback, as a person would.
 * The real-Chromium journey is test/system/web-journey.test.ts.
 */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const maxAge = attrs.map((a) => a.trim()).find((a) => /^max-age=/i.test(a));
      const expired =
        /expires=Thu, 01 Jan 1970/i.test(line) || (maxAge !== undefined && Number(maxAge.split('=')[1]) <= 0);
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export interface WebClient {
  baseUrl: string;
  jar: CookieJar;
  /** One request with the jar's cookies; the answer's cookies go into the jar. Never follows redirects. */
  fetch(path: string, init?: RequestInit & { form?: Record<string, string | string[]> }): Promise<Response>;
}

export function webClient(baseUrl: string, forwardedFor?: string): WebClient {
  const jar = new CookieJar();
  return {
    baseUrl,
    jar,
    async fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (jar.cookies.size > 0 && !headers.has('cookie')) headers.set('cookie', jar.header());
      if (forwardedFor) headers.set('x-forwarded-for', forwardedFor);
      let body = init.body;
      const url = path.startsWith('http') ? path : baseUrl + path;
      if (init.form) {
        const params = new URLSearchParams();
        for (const [k, v] of Object.entries(init.form)) for (const one of [v].flat()) params.append(k, one);
        body = params.toString();
        headers.set('content-type', 'application/x-www-form-urlencoded');
        // A browser sends the origin of the page the form is on: the server it posts to.
        if (!headers.has('origin')) headers.set('origin', new URL(url).origin);
      }
      const res = await fetch(url, { ...init, headers, body, redirect: 'manual' });
      jar.take(res);
      return res;
    },
  };
}

const location = (res: Response) => {
  const loc = res.headers.get('location');
  if (!loc) throw new Error(`expected a redirect, got ${res.status}`);
  return loc;
};

/**
 * Signs in through /login and the embedded provider as `subject`; answers where the callback
 * sent the browser (the return_to). Throws on any unexpected step.
 */
export async function signInThroughEmbeddedProvider(
  client: WebClient,
  subject: string,
  returnTo?: string,
): Promise<string> {
  const login = await client.fetch(
    `/login${returnTo === undefined ? '' : `?return_to=${encodeURIComponent(returnTo)}`}`,
  );
  if (login.status !== 302) throw new Error(`/login answered ${login.status}: ${await login.text()}`);
  // Each redirect resolves against the page that sent it: the provider may be another origin.
  let at = new URL(location(login), client.baseUrl);
  let res = await client.fetch(at.href);
  // The provider sends the browser to its sign-in page (an interaction).
  while (res.status >= 300 && res.status < 400 && !location(res).includes('/interaction/')) {
    at = new URL(location(res), at);
    res = await client.fetch(at.href);
  }
  const interaction = new URL(location(res), at);
  const page = await client.fetch(interaction.href);
  if (page.status !== 200) throw new Error(`sign-in page answered ${page.status}`);
  at = new URL(`${interaction.pathname}/login`, interaction);
  res = await client.fetch(at.href, { method: 'POST', form: { login: subject } });
  while (res.status >= 300 && res.status < 400 && !location(res).includes('/auth/callback')) {
    at = new URL(location(res), at);
    res = await client.fetch(at.href);
  }
  const callback = await client.fetch(new URL(location(res), at).href);
  if (callback.status !== 303)
    throw new Error(`callback answered ${callback.status}: ${await callback.text()}`);
  return location(callback);
}

/** The `_csrf` value of the first form on a page. */
export function csrfFrom(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no _csrf field on the page');
  return m[1];
}
