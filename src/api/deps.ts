import type { CredentialCache } from '../auth/credential-cache';
import type { SessionJwtVerifier } from '../auth/jwt';
import type { AgentKeyAuthRow } from '../db/queries/agent-keys';
import type { ApiTokenAuthRow } from '../db/queries/api-tokens';
import type { ServiceDeps } from '../service-deps';
import type { LiveHub } from '../runtime/live-hub';
import type { RateLimiter } from './rate-limits';
import type { SignIn } from '../domain/accounts/sign-in';

/** Everything a route needs from the outside world, built once at start and injected. */
export interface AppDeps extends ServiceDeps {
  jwt: SessionJwtVerifier;
  rateLimiter: RateLimiter;
  /** Credential rows of this process, invalidated through LISTEN/NOTIFY (src/auth/credential-cache.ts). */
  credentialCache: CredentialCache<ApiTokenAuthRow | AgentKeyAuthRow>;
  /** This process's spectator fan-out: one database read per released batch for all of its open streams. */
  liveHub: LiveHub;
  /** The leaderboard's version for cached answers; one statement per event-loop turn (src/domain/leaderboard.ts). */
  leaderboardVersion: (challengeId: string) => Promise<string | null>;
  /** People signing in on the web: the configured OpenID provider, the embedded one, or off. */
  signIn: SignIn;
}
