/**
 * Pages of signing in: the embedded provider's sign-in page (development), "sign-in is off", and
 * the plain message pages the web's forms answer with (403 for a refused form, 400, …).
 */
import { renderPage, type HeaderAccount, type RenderedPage } from '../../../web/layout';
import { csrfField } from '../../../web/forms';
import { html, raw, type SafeHtml } from '../../../web/html';

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
 * One field of a form kept through a sign-in (/unsent), as the form itself labels it: `line`,
 * `text` (several lines), `number`, `datetime` boxes with what was typed; `checks` a group of boxes
 * (`options`, the ticked ones in `values`); `check` one box (`options[0]`); `fixed` a value the
 * person picked from a list, shown as it read there (`shown`: an agent's name) and sent unchanged.
 */
export interface UnsentFieldView {
  name: string;
  label: string;
  kind: 'line' | 'text' | 'number' | 'datetime' | 'checks' | 'check' | 'fixed';
  values: string[];
  options?: { value: string; label: string }[];
  shown?: string;
}

/** A kept form shown as a summary in its own words: its title, what it is about, its fields, its button. */
export interface UnsentFormView {
  title: string;
  submit: string;
  /** What the form acts on, as its page shows it ("Agent": its name). */
  facts: { label: string; value: string }[];
  fields: UnsentFieldView[];
  /** Everything else the form carried (which button, hidden values): sent again unchanged. */
  hidden: [string, string][];
}

function unsentField(f: UnsentFieldView, i: number): SafeHtml {
  const id = `unsent-${i}`;
  const value = f.values[0] ?? '';
  switch (f.kind) {
    case 'text':
      return html`<label for="${id}">${f.label}<textarea id="${id}" name="${f.name}" rows="${Math.min(12, Math.max(3, value.split('\n').length))}" spellcheck="false">${value}</textarea></label>`;
    case 'number':
      return html`<label for="${id}">${f.label}<input id="${id}" name="${f.name}" inputmode="numeric" value="${value}"></label>`;
    case 'datetime':
      return html`<label for="${id}">${f.label}<input id="${id}" name="${f.name}" type="datetime-local" step="1" value="${value}"></label>`;
    case 'check': {
      const box = f.options?.[0] ?? { value: 'true', label: f.label };
      return html`<label class="check" for="${id}"><span><input type="checkbox" id="${id}" name="${f.name}" value="${box.value}"${f.values.length ? raw(' checked') : ''}> ${f.label}</span></label>`;
    }
    case 'checks':
      return html`<fieldset><legend>${f.label}</legend><div class="row">${(f.options ?? []).map(
        (o, j) =>
          html`<label class="check" for="${id}-${j}"><span><input type="checkbox" id="${id}-${j}" name="${f.name}" value="${o.value}"${f.values.includes(o.value) ? raw(' checked') : ''}> ${o.label}</span></label>`,
      )}</div></fieldset>`;
    case 'fixed':
      return html`<p class="wrap"><strong>${f.label}:</strong> ${f.shown ?? value}${f.values.map((v) => html`<input type="hidden" name="${f.name}" value="${v}">`)}</p>`;
    default:
      return html`<label for="${id}">${f.label}<input id="${id}" name="${f.name}" value="${value}" spellcheck="false"></label>`;
  }
}

/**
 * /unsent: a form this browser sent while signed out, kept through the sign-in, when it is not shown
 * again as itself (those forms are their own pages, restored): a summary in the form's own words
 * (`described`), editable, sent again only with its button (this session's CSRF token). A kept form
 * nobody described is never shown by its fields' internal names: the page leads back to its page.
 */
export function renderUnsentFormPage(input: {
  stash: {
    action: string;
    page: string;
    fields: [string, string][];
    had_files: boolean;
    created_at: Date;
  } | null;
  described?: UnsentFormView | null;
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
  const d = input.described;
  const form = d
    ? html`<form class="stack wide" method="post" action="${st.action}" enctype="multipart/form-data" aria-labelledby="unsent-form-title">${csrfField(input.csrfToken)}
<h2 id="unsent-form-title" class="wrap">${d.title}</h2>
${d.facts.length ? html`<dl class="rules" id="unsent-facts">${d.facts.map((f) => html`<dt>${f.label}</dt><dd class="wrap">${f.value}</dd>`)}</dl>` : ''}
${d.fields.map((f, i) => unsentField(f, i))}
${d.hidden.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<div class="actions"><button type="submit" id="send-again">${d.submit}</button><a href="${st.page}">Back to the page it was on (discard)</a></div>
</form>`
    : html`<p id="unsent-elsewhere">This form cannot be shown again here: <a href="${st.page}">open the page it was on</a> and fill it in again.</p>`;
  const body = html`<h1>Your form was not sent</h1>
<p class="notice" role="status" id="unsent-notice">You were signed out when you sent it (from another tab, or the session had ended), so nothing was sent and nothing changed. ${d ? 'What you typed is kept below: check it, then send it again as the person now signed in.' : ''}</p>
${st.had_files ? html`<p class="notice" id="unsent-files">The files you attached could not be kept: <a href="${st.page}">open the form again</a> and attach them there.</p>` : ''}
${form}`;
  return renderPage({ title: 'Your form was not sent', body, account: input.account });
}
