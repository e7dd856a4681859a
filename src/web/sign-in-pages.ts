/**
 * Pages of signing in: the embedded provider's sign-in page (development), "sign-in is off", and
 * the plain message pages the web's forms answer with (403 for a refused form, 400, …).
 */
import { renderPage, type HeaderAccount, type RenderedPage } from './layout';
import { html } from './html';

/** A page that says one thing and leads back: refusals and failures of the web's forms. */
export function renderMessagePage(input: {
  title: string;
  message: string;
  /** Where to go next (default: the home page). */
  next?: { href: string; label: string };
  account?: HeaderAccount;
}): RenderedPage {
  const next = input.next ?? { href: '/', label: 'Back to the challenges' };
  const body = html`<h1>${input.title}</h1>
<p>${input.message}</p>
<p><a href="${next.href}">${next.label}</a></p>`;
  return renderPage({ title: input.title, body, account: input.account });
}

export function renderSignInOffPage(): RenderedPage {
  return renderMessagePage({
    title: 'Sign-in is not available',
    message:
      'This service has no identity provider configured, so nobody can sign in on the web. The challenges, leaderboards and watch pages stay open to everyone, and the API takes the credentials its operator issues.',
  });
}

/** The embedded provider's sign-in page: the demo accounts, or any name (development only). */
export function renderEmbeddedProviderSignIn(input: {
  action: string;
  accounts: readonly { sub: string; name: string }[];
  error?: string;
}): RenderedPage {
  const accounts = input.accounts.map(
    (a) =>
      html`<li><form method="post" action="${input.action}"><input type="hidden" name="login" value="${a.sub}"><button type="submit">Continue as ${a.name}</button> <code>${a.sub}</code></form></li>`,
  );
  const body = html`<h1>Sign in (development provider)</h1>
<p class="notice">This is the embedded OpenID provider of a development run: there are no passwords, anyone may sign in as any name. Production refuses it; there the service's own identity provider signs people in.</p>
${input.error ? html`<p class="notice" role="alert">${input.error}</p>` : ''}
<h2>Demo accounts</h2>
<ul class="stack">${accounts}</ul>
<h2>Any name</h2>
<form class="row" method="post" action="${input.action}">
  <label for="login">Subject (the <code>sub</code> that <code>cli jwt mint --sub</code> takes)<input id="login" name="login" required maxlength="255" autocomplete="username" spellcheck="false"></label>
  <button type="submit">Sign in</button>
</form>`;
  return renderPage(
    { title: 'Sign in (development provider)', body, referrer: 'same-origin' },
    { formAction: true, referrer: 'same-origin' },
  );
}
