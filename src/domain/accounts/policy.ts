/**
 * Who may use what on the web (a person signed in with a web session): operators have the console
 * (/admin: its pages, and its link in the site header). Pages, routes and the pipeline ask here.
 */

/** A web session of an operator (role admin, decided at sign-in like a session JWT's). */
export function isOperatorSession(session: { role?: string }): boolean {
  return session.role === 'admin';
}

/**
 * A form kept for a signed-out poster is its person's only (DESIGN "Fifth-round extensions"): the
 * user it was rendered for, never whoever signs in next on the browser.
 */
export function mayReadStashedForm(session: { userId: string }, stash: { user_id: string }): boolean {
  return session.userId === stash.user_id;
}
