import { z } from 'zod';
import { safeReturnTo } from '../../../domain/accounts/rules';
import { endEveryWebSession, endWebSession } from '../../../domain/accounts/web-sessions';
import { ServiceError } from '../../../errors';
import { renderMessagePage, renderSignInOffPage } from './sign-in-view';
import { httpStatusOf } from '../../errors';
import { htmlPage } from '../../html-page';
import { defineRoute } from '../../route';
import {
  clearFormStashCookie,
  clearPromptLoginCookie,
  clearSessionCookie,
  clearSignInCookie,
  readPromptLogin,
  readSignInSecret,
  setPromptLoginCookie,
  setSessionCookie,
  setSignInCookie,
  readFormStashSecret,
  siteOrigin,
} from '../../web-session-http';
import {
  dropStashedForms,
  findStashedFormFor,
  keepStashOnlyFor,
  UNSENT_FORM_PATH,
} from '../../../domain/accounts/form-stash';
import { renderUnsentFormPage } from './sign-in-view';
import { headerAccount } from '../../../web/layout';
import { restoreUnsentForm } from './unsent-forms';

const loginQuery = z.object({ return_to: z.string().optional().catch(undefined) });
/** The provider's answer: checked by openid-client from the full URL, not field by field here. */
const callbackQuery = z.object({}).passthrough();
const logoutForm = z.object({
  _csrf: z.string(),
  /** "Sign out everywhere": every session of this person, on every device. */
  everywhere: z.enum(['1']).optional(),
});

/** Signing in and out on the web (docs/decisions/web.md); pages, hidden from OpenAPI. */
export const webSignInRoutes = [
  defineRoute({
    operationId: 'signInPage',
    method: 'get',
    path: '/login',
    summary: "Web: start signing in (302 to the identity provider's authorization endpoint)",
    tags: ['pages'],
    auth: 'public',
    rateLimit: 'reads',
    internal: true,
    query: loginQuery,
    responses: {
      302: { description: 'To the identity provider' },
      200: { description: 'Sign-in is off on this service (HTML page)', contentType: 'text/html' },
    },
    async handler({ query, deps, ctx }) {
      const returnTo = safeReturnTo(query.return_to);
      if (deps.signIn.mode === 'off') return htmlPage(renderSignInOffPage());
      // Even when signed in: the person may mean to sign in as someone else, and the callback then
      // replaces whatever session cookie the browser holds.
      try {
        // After a sign-out whose provider could not end its own session: the provider asks again.
        const forceLogin = readPromptLogin(ctx, deps.config);
        const { authorizationUrl, attemptSecret } = await deps.signIn.begin(
          siteOrigin(ctx, deps.config),
          returnTo,
          { forceLogin },
        );
        setSignInCookie(ctx, deps.config, attemptSecret);
        return { redirect: authorizationUrl };
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        return htmlPage(
          renderMessagePage({ title: 'Sign-in unavailable', message: err.message }),
          httpStatusOf(err),
        );
      }
    },
  }),
  defineRoute({
    operationId: 'signInCallback',
    method: 'get',
    path: '/auth/callback',
    summary: 'Web: the identity provider returns here; a new session starts (303 to return_to)',
    tags: ['pages'],
    auth: 'public',
    rateLimit: 'reads',
    internal: true,
    query: callbackQuery,
    responses: {
      303: { description: 'Signed in: to return_to, with a new session cookie' },
      400: { description: 'The sign-in did not complete (HTML page)', contentType: 'text/html' },
    },
    async handler({ deps, ctx }) {
      const origin = siteOrigin(ctx, deps.config);
      clearSignInCookie(ctx, deps.config);
      if (deps.signIn.mode === 'off') return htmlPage(renderSignInOffPage());
      try {
        const { secret, session, returnTo } = await deps.signIn.finish(
          origin,
          origin + ctx.url,
          readSignInSecret(ctx, deps.config),
        );
        // Always a new session secret: whatever cookie the browser had before is replaced (no fixation).
        setSessionCookie(ctx, deps.config, secret);
        // A form kept on this browser for someone else is dropped: the next person never sees it.
        const stashSecret = readFormStashSecret(ctx, deps.config);
        if (stashSecret && !(await keepStashOnlyFor(deps.db, stashSecret, session)))
          clearFormStashCookie(ctx, deps.config);
        clearPromptLoginCookie(ctx, deps.config);
        return { redirect: returnTo, status: 303 };
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        const status = err.code === 'UNAUTHORIZED' ? 400 : httpStatusOf(err);
        return htmlPage(
          renderMessagePage({
            title: 'Sign-in did not complete',
            message: err.message,
            next: { href: '/login', label: 'Try signing in again' },
          }),
          status,
        );
      }
    },
  }),
  defineRoute({
    operationId: 'signOut',
    method: 'post',
    path: '/logout',
    summary:
      "Web form: sign out (this session, or every session with everywhere=1); ends it on the server, then the provider's session too (RP-initiated logout), or marks the browser so the next sign-in asks again (prompt=login)",
    tags: ['pages'],
    auth: 'webSession',
    rateLimit: 'default',
    internal: true,
    whenSignedOut: '/',
    body: logoutForm,
    responses: {
      303: { description: "Signed out: to the provider's logout (back to the home page), or the home page" },
    },
    async handler({ body, webSession, deps, ctx }) {
      const { idToken } = body.everywhere
        ? await endEveryWebSession(deps.db, webSession)
        : await endWebSession(deps.db, webSession);
      clearSessionCookie(ctx, deps.config);
      // A form kept for a signed-out poster goes with the sign-out (everywhere: every one of theirs).
      await dropStashedForms(
        deps.db,
        readFormStashSecret(ctx, deps.config),
        body.everywhere ? webSession : undefined,
      );
      clearFormStashCookie(ctx, deps.config);
      // DESIGN: the provider's session ends too, where it offers end_session_endpoint; otherwise
      // the next sign-in from this browser asks who is there (prompt=login).
      const providerLogout = await deps.signIn.endSessionUrl(siteOrigin(ctx, deps.config), idToken);
      if (providerLogout) return { redirect: providerLogout, status: 303 };
      setPromptLoginCookie(ctx, deps.config);
      return { redirect: '/', status: 303 };
    },
  }),
  defineRoute({
    operationId: 'unsentFormPage',
    method: 'get',
    path: UNSENT_FORM_PATH,
    summary: 'Web: a form this browser sent while signed out, kept through the sign-in, to send again',
    tags: ['pages'],
    auth: 'webSession',
    rateLimit: 'reads',
    internal: true,
    responses: { 200: { description: 'the kept form (HTML page)', contentType: 'text/html' } },
    async handler({ deps, ctx, webSession, principal }) {
      const stashSecret = readFormStashSecret(ctx, deps.config);
      // Only the person the form was rendered for sees it; another's is dropped with its cookie.
      const stash = await findStashedFormFor(deps.db, stashSecret, webSession);
      if (stashSecret && !stash) clearFormStashCookie(ctx, deps.config);
      // Every kept form comes back as itself or as a summary in its own words (unsent-forms.ts).
      if (stash) return restoreUnsentForm(deps, principal, webSession, stash);
      return htmlPage(
        renderUnsentFormPage({
          stash,
          csrfToken: webSession.csrfToken,
          account: headerAccount(webSession),
        }),
      );
    },
  }),
];
