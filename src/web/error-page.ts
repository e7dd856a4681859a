import { type HeaderAccount, renderPage, type RenderedPage } from './layout';
import { html } from './html';

/**
 * The HTML answer of a page route that fails (and of any unknown path outside /api/): what went
 * wrong in words, where to go next (the site header plus links back), and the request id to
 * quote. Pages answer people; the JSON envelope stays the API's. Every failing page uses it, signed
 * in or not: a signed-in page's refusal (a form, a bad address, a forbidden console) adds the
 * account header and a link back to where the person came from.
 */
const TITLES: Record<number, { title: string; text: string }> = {
  400: { title: 'That address is not quite right', text: 'The page could not read part of its address.' },
  403: { title: 'Not allowed', text: 'You may not see this page.' },
  409: { title: 'Not done', text: 'That conflicts with how things stand now. Nothing was changed.' },
  410: { title: 'Gone', text: 'This is no longer available.' },
  413: { title: 'Form too large', text: 'The form was larger than this page accepts. Nothing was changed.' },
  415: { title: 'Form not readable', text: 'The form was not sent the way a browser sends one.' },
  422: { title: 'Not done', text: 'That cannot be done in this state. Nothing was changed.' },
  404: {
    title: 'Page not found',
    text: 'There is nothing at this address. It may have moved, or never existed.',
  },
  429: {
    title: 'Too many requests',
    text: 'This address asked for pages faster than we serve them. Wait a moment, then reload.',
  },
  500: { title: 'Something went wrong on our side', text: 'The page could not be built. Try again shortly.' },
  503: {
    title: 'Temporarily unavailable',
    text: 'A service this page needs is not answering. Try again shortly.',
  },
};

export function renderErrorPage(input: {
  status: number;
  /** A more precise title, e.g. "Challenge not found". */
  title?: string;
  /** A more precise first line than the status's own, e.g. for a refused form. */
  text?: string;
  /** The error's own message, shown for 4xx (never for 5xx: it may be internal). */
  detail?: string;
  requestId?: string;
  retryAfterSec?: number;
  /** The header's account part (a signed-in page's error keeps the sign-out form). */
  account?: HeaderAccount;
  /** Where the person came from, listed first under "Where next". */
  back?: { href: string; label: string };
}): RenderedPage {
  const known = TITLES[input.status] ?? TITLES[input.status >= 500 ? 500 : 400];
  const title = input.title ?? known.title;
  const detail = input.detail && input.status < 500 ? html`<p class="muted small">${input.detail}</p>` : '';
  const retry =
    input.retryAfterSec !== undefined
      ? html`<p>You can try again in ${input.retryAfterSec} second${input.retryAfterSec === 1 ? '' : 's'}.</p>`
      : '';
  const body = html`<h1>${title}</h1>
<p>${input.text ?? known.text}</p>
${detail}${retry}
<nav aria-label="Where next"><ul class="next">
${input.back ? html`<li><a href="${input.back.href}">${input.back.label}</a></li>\n` : ''}<li><a href="/">All challenges</a></li>
<li><a href="/me">My submissions</a></li>
<li><a href="/api/v1/docs">API reference</a></li>
</ul></nav>
<p class="muted small">Error ${input.status}${input.requestId ? html` · request id <code>${input.requestId}</code>` : ''}</p>`;
  const page = renderPage({ title: `${title} · Challenges`, body, account: input.account });
  if (input.retryAfterSec !== undefined) page.headers['Retry-After'] = String(input.retryAfterSec);
  return page;
}
