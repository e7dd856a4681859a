/**
 * Route definitions of the signed-in web pages (`auth: 'webSession'`, hidden from OpenAPI): one
 * shape for every page and form, so the pipeline's conventions hold for all of them alike — a
 * signed-out visitor is sent to sign in, and under /admin (the operators' console) anyone but an
 * operator gets the 403 page before any input is read.
 */
import type { z, ZodTypeAny } from 'zod';
import { defineRoute, type AnyRouteDef, type RouteDef } from './route';

const HTML_PAGE = { description: 'HTML page', contentType: 'text/html' } as const;

/** Pages under /admin are the operators' console. */
export const isConsolePath = (path: string) => path === '/admin' || path.startsWith('/admin/');

/** The rest of a public page's definition (its scope says what it reads, for tokens that call it). */
type PublicPageRest<P extends ZodTypeAny, Q extends ZodTypeAny, B extends ZodTypeAny> = Partial<
  Omit<RouteDef<P, Q, B, 'public'>, 'auth' | 'handler'>
> &
  Pick<RouteDef<P, Q, B, 'public'>, 'handler'>;

/** A public GET page answering HTML (anyone; a signed-in visitor sees their account in the header). */
export function publicPage<
  P extends ZodTypeAny = z.ZodUndefined,
  Q extends ZodTypeAny = z.ZodUndefined,
  B extends ZodTypeAny = z.ZodUndefined,
>(operationId: string, path: string, summary: string, rest: PublicPageRest<P, Q, B>): AnyRouteDef {
  return defineRoute<P, Q, B, 'public'>({
    operationId,
    method: 'get',
    path,
    summary,
    tags: ['pages'],
    auth: 'public',
    rateLimit: 'reads',
    internal: true,
    showsAccount: true,
    responses: { 200: HTML_PAGE },
    ...rest,
  });
}

/** The rest of a page's definition; its handler sees the signed-in session (never null). */
type PageRest<P extends ZodTypeAny, Q extends ZodTypeAny, B extends ZodTypeAny> = Partial<
  Omit<RouteDef<P, Q, B, 'webSession'>, 'auth' | 'handler'>
> &
  Pick<RouteDef<P, Q, B, 'webSession'>, 'handler'>;

/** What tells a signed-in page from a signed-in form. */
interface SignedInKind {
  method: 'get' | 'post';
  rateLimit: 'reads' | 'default';
  responses: RouteDef<ZodTypeAny, ZodTypeAny, ZodTypeAny, 'webSession'>['responses'];
}

function signedInRoute<P extends ZodTypeAny, Q extends ZodTypeAny, B extends ZodTypeAny>(
  kind: SignedInKind,
  operationId: string,
  path: string,
  summary: string,
  rest: PageRest<P, Q, B>,
): AnyRouteDef {
  return defineRoute<P, Q, B, 'webSession'>({
    operationId,
    path,
    summary,
    tags: ['pages'],
    auth: 'webSession',
    operatorsOnly: isConsolePath(path),
    internal: true,
    ...kind,
    ...rest,
  });
}

const PAGE: SignedInKind = { method: 'get', rateLimit: 'reads', responses: { 200: HTML_PAGE } };
const FORM: SignedInKind = {
  method: 'post',
  rateLimit: 'default',
  responses: { 303: { description: 'done: to the page that shows it' }, 200: HTML_PAGE, 400: HTML_PAGE },
};

/** A GET page answering HTML. */
export function signedInPage<
  P extends ZodTypeAny = z.ZodUndefined,
  Q extends ZodTypeAny = z.ZodUndefined,
  B extends ZodTypeAny = z.ZodUndefined,
>(operationId: string, path: string, summary: string, rest: PageRest<P, Q, B>): AnyRouteDef {
  return signedInRoute(PAGE, operationId, path, summary, rest);
}

/** A form post: 303 to the page that shows what it did, or an HTML page (its errors, an outcome). */
export function signedInForm<
  P extends ZodTypeAny = z.ZodUndefined,
  Q extends ZodTypeAny = z.ZodUndefined,
  B extends ZodTypeAny = z.ZodUndefined,
>(operationId: string, path: string, summary: string, rest: PageRest<P, Q, B>): AnyRouteDef {
  return signedInRoute(FORM, operationId, path, summary, rest);
}
