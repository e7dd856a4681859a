import type { Client as TemporalClient } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../src/config';
import { createSubmissionActivities } from './submissions';
import { createChallengeActivities } from './challenges';
import { createWebhookActivities } from './webhooks';
import { createSpectatorActivities } from './spectator';

/** What activities may touch; built once in the worker and injected (no globals). */
export interface ActivityDeps {
  config: Config;
  db: Pool;
  logger: Logger;
  temporal: () => Promise<TemporalClient>;
}

/**
 * All activities, as a factory over injected clients. Each feature contributes its own
 * `create...Activities(deps)`; activities are idempotent because Temporal may run them twice.
 */
export function createActivities(_deps: ActivityDeps) {
  return {
    ...createWebhookActivities(_deps),
    ...createChallengeActivities(_deps),
    ...createSubmissionActivities(_deps),
    ...createSpectatorActivities(_deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
