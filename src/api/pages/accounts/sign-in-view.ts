/**
 * Pages of signing in: the embedded provider's sign-in page (development), "sign-in is off", and
 * the plain message pages the web's forms answer with (403 for a refused form, 400, …).
 */
import { renderPage, type HeaderAccount, type RenderedPage } from '../../../web/layout';
import { csrfField } from '../../../web/forms';
import { html, raw } from '../../../web/html';

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

/**
 * The embedded provider's logout confirmation (RP-initiated logout, development only). `form` is
 * the provider's own hidden form (its anti-forgery token); the buttons submit it.
 */
export function renderEmbeddedProviderSignOut(input: { form: string }): RenderedPage {
  const body = html`<h1>Sign out of the development provider too?</h1>
<p>You signed out of the challenge service. Sign out here as well so that the next person on this browser must say who they are (another account can then sign in).</p>
${raw(input.form)}
<div class="actions row"><button type="submit" form="op.logoutForm" value="yes" name="logout" id="provider-sign-out">Yes, sign me out</button> <button type="submit" class="secondary" form="op.logoutForm" id="provider-stay">No, stay signed in here</button></div>`;
  return renderPage(
    { title: 'Sign out (development provider)', body, referrer: 'same-origin' },
    { formAction: true, referrer: 'same-origin' },
  );
}

/**
 * /unsent: a form this browser sent while signed out, kept through the sign-in. Its fields are
 * shown, editable, and sent again only with the button (with this session's CSRF token).
 */
export function renderUnsentFormPage(input: {
  stash: {
    action: string;
    page: string;
    fields: [string, string][];
    had_files: boolean;
    created_at: Date;
  } | null;
  csrfToken: string;
  account: HeaderAccount;
}): RenderedPage {
  const st = input.stash;
  if (!st) {
    const body = html`<h1>Nothing waiting to be sent</h1>
<p>No form sent while you were signed out is kept for this browser (they are kept for ten minutes).</p>
<p><a href="/me">Your account</a></p>`;
    return renderPage({ title: 'Nothing waiting to be sent', body, account: input.account });
  }
  const fields = st.fields.map(
    ([name, value], i) =>
      html`<label for="unsent-${i}">${name}<textarea id="unsent-${i}" name="${name}" rows="${Math.min(12, Math.max(2, value.split('\n').length))}" spellcheck="false">${value}</textarea></label>`,
  );
  const body = html`<h1>Your form was not sent</h1>
<p class="notice" role="status" id="unsent-notice">You were signed out when you sent it (from another tab, or the session had ended), so nothing was sent and nothing changed. What you typed is kept below: check it, then send it again as the person now signed in.</p>
${st.had_files ? html`<p class="notice" id="unsent-files">The files you attached could not be kept: <a href="${st.page}">open the form again</a> and attach them there.</p>` : ''}
<form class="stack wide" method="post" action="${st.action}" enctype="multipart/form-data" aria-label="The form you sent while signed out">${csrfField(input.csrfToken)}
${fields}
<div class="actions"><button type="submit" id="send-again">Send it now</button><a href="${st.page}">Back to the page it was on (discard)</a></div>
</form>`;
  return renderPage({ title: 'Your form was not sent', body, account: input.account });
}
