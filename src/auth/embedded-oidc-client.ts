/**
 * The one client the embedded OpenID provider knows (development and tests only: production
 * refuses the embedded provider, src/config.ts). Shared by the provider and the relying party.
 */
export const EMBEDDED_OIDC_MOUNT = '/oidc';
export const EMBEDDED_OIDC_CLIENT_ID = 'challenge-service-web';
export const EMBEDDED_OIDC_CLIENT_SECRET = 'embedded-provider-development-secret';
/** The path of the callback on the relying party's origin. */
export const SIGN_IN_CALLBACK_PATH = '/auth/callback';

/** The demo accounts offered on the embedded provider's sign-in page (owners of the seeded agents). */
export const EMBEDDED_DEMO_ACCOUNTS = [
  { sub: 'demo|ada', name: 'Ada (demo)' },
  { sub: 'demo|basil', name: 'Basil (demo)' },
  { sub: 'demo|admin', name: 'Demo operator' },
] as const;

/** The embedded provider's operator: its ID token says `role: admin` (trusted only where AUTH_TRUST_ROLE_CLAIM is). */
export const EMBEDDED_OPERATOR_SUBJECT = 'demo|admin';
