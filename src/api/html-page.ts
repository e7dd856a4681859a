import { ServiceError } from '../errors';
import { renderErrorPage } from '../web/error-page';
import type { RenderedPage } from '../web/layout';
import type { HandlerResult } from './route';

/**
 * A rendered page as a route's result (its own headers carry the page's Content-Security-Policy).
 * Only a page rendered from SafeHtml (src/web/html.ts) fits here: a hand-built string does not.
 */
export const htmlPage = (page: RenderedPage, status = 200): HandlerResult => ({
  status,
  raw: page.html.toString(),
  contentType: 'text/html; charset=utf-8',
  headers: page.headers,
});

/**
 * Loads what a page shows; a resource that is missing (or not visible to the caller) answers the
 * HTML 404 page, because pages answer people, not the JSON envelope.
 */
export async function pageFor<T>(
  load: () => Promise<T>,
  render: (found: T) => Promise<HandlerResult> | HandlerResult,
): Promise<HandlerResult> {
  let found: T;
  try {
    found = await load();
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'NOT_FOUND') {
      // Says what is missing ("Challenge not found", "Match not found", "Game not found").
      const title = err.message.charAt(0).toUpperCase() + err.message.slice(1);
      return htmlPage(renderErrorPage({ status: 404, title }), 404);
    }
    throw err;
  }
  return render(found);
}
