/**
 * Route definitions of the signed-in web pages (`auth: 'webSession'`, hidden from OpenAPI): one
 * shape for every page and form, so the pipeline's conventions hold for all of them alike — a
 * signed-out visitor is sent to sign in, and under /admin (the operators' console) anyone but an
 * operator gets the 403 page before any input is read.
 */
import { defineRoute, type AnyRouteDef } from './route';

const HTML_PAGE = { description: 'HTML page', contentType: 'text/html' } as const;

/** Pages under /admin are the operators' console. */
export const isConsolePath = (path: string) => path === '/admin' || path.startsWith('/admin/');

type PageRest = Partial<AnyRouteDef> & Pick<AnyRouteDef, 'handler'>;

/** A GET page answering HTML. */
export function signedInPage(
  operationId: string,
  path: string,
  summary: string,
  rest: PageRest,
): AnyRouteDef {
  return defineRoute({
    operationId,
    method: 'get',
    path,
    summary,
    tags: ['pages'],
    auth: 'webSession',
    operatorsOnly: isConsolePath(path),
    rateLimit: 'reads',
    internal: true,
    responses: { 200: HTML_PAGE },
    ...rest,
  });
}

/** A form post: 303 to the page that shows what it did, or an HTML page (its errors, an outcome). */
export function signedInForm(
  operationId: string,
  path: string,
  summary: string,
  rest: PageRest,
): AnyRouteDef {
  return defineRoute({
    operationId,
    method: 'post',
    path,
    summary,
    tags: ['pages'],
    auth: 'webSession',
    operatorsOnly: isConsolePath(path),
    rateLimit: 'default',
    internal: true,
    responses: { 303: { description: 'done: to the page that shows it' }, 200: HTML_PAGE, 400: HTML_PAGE },
    ...rest,
  });
}
