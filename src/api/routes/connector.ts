import { listAssignedEntries, listIdleEntries } from '../../db/queries/entries';
import { idleReasonOf } from '../../domain/connector/rules';
import { boutAssignments } from '../../domain/matches/reads';
import { acceptLiveEvent } from '../../domain/connector/stream';
import { recordHeartbeat } from '../../domain/identity';
import { checkAgentName } from '../../domain/agents/rules';
import { defineRoute } from '../route';
import { flatErrorSchema } from '../schemas/common';
import { iso } from '../../lib/time';
import {
  assignedResponse,
  heartbeatBody,
  heartbeatResponse,
  streamBody,
  streamResponse,
} from '../schemas/connector';
import { toAgent } from '../schemas/identity';

const flatErrors = {
  401: { description: 'missing, invalid, expired or revoked agent key', schema: flatErrorSchema },
  429: { description: 'rate limited', schema: flatErrorSchema },
};

/**
 * Connector endpoints (agent key in x-service-api-key). Bodies are not enveloped and errors are
 * flat `{error: string}` (the pipeline does that for every agentKey route).
 * Registered before the challenge routes so /challenges/assigned is not read as /challenges/:id.
 */
export const connectorRoutes = [
  defineRoute({
    operationId: 'agentHeartbeat',
    method: 'post',
    path: '/api/v1/agents/ping',
    summary: 'Heartbeat: marks the agent online and records its self-description (send every 30 s)',
    tags: ['connector'],
    auth: 'agentKey',
    rateLimit: 'heartbeat',
    body: heartbeatBody,
    responses: {
      200: { description: 'alive', schema: heartbeatResponse },
      400: { description: 'invalid body', schema: flatErrorSchema },
      ...flatErrors,
    },
    async handler({ body, principal, deps }) {
      const checked = body.agent_name === undefined ? undefined : checkAgentName(body.agent_name);
      if (checked && !checked.ok)
        deps.logger.warn(
          {
            agent_id: principal.agentId,
            reason: checked.reason,
            agent_name: (body.agent_name ?? '').slice(0, 200),
          },
          'heartbeat: invalid agent_name ignored (the agent keeps its name)',
        );
      const row = await recordHeartbeat(deps.db, principal.agentId, {
        name: checked?.ok ? checked.name : undefined,
        model_name: body.model_name,
        skill_count: body.skill_count,
        soul_excerpt: body.soul_excerpt,
        version: body.version,
      });
      const agent = toAgent(row, deps.config.AGENT_ONLINE_WINDOW_MS);
      return { raw: { status: 'ok', agent_id: agent.id, is_online: agent.is_online } };
    },
  }),
  defineRoute({
    operationId: 'listAssignedChallenges',
    method: 'get',
    path: '/api/v1/challenges/assigned',
    summary:
      "The agent's entries waiting to be picked up (status assigned), poll every 5 s; `idle` says why each other entry is not (already judged, challenge not active…), empty when the agent is entered nowhere",
    tags: ['connector'],
    auth: 'agentKey',
    rateLimit: 'assigned',
    responses: { 200: { description: 'assignments', schema: assignedResponse }, ...flatErrors },
    async handler({ principal, deps }) {
      const [rows, idleRows] = await Promise.all([
        listAssignedEntries(deps.db, principal.agentId),
        listIdleEntries(deps.db, principal.agentId, 20),
      ]);
      const bouts = await boutAssignments(
        deps.db,
        principal.agentId,
        rows.flatMap((r) => (r.match_id ? [{ matchId: r.match_id, endsAt: r.match_ends_at }] : [])),
      );
      return {
        raw: {
          challenges: rows.map((r) => ({
            // A bout's assignment carries its match (DESIGN "Matches between agents").
            ...(r.match_id ? { match: bouts.get(r.match_id) } : {}),
            entry_id: r.entry_id,
            assigned_at: r.assigned_at.toISOString(),
            challenge: {
              id: r.challenge_id,
              title: r.title,
              description: r.description,
              category: r.category,
              format: r.format,
              time_limit_minutes: r.time_limit_minutes,
              starts_at: iso(r.starts_at),
              ends_at: iso(r.ends_at),
            },
          })),
          idle: idleRows.map((r) => ({
            entry_id: r.entry_id,
            challenge_id: r.challenge_id,
            title: r.title,
            ...idleReasonOf(r.entry_status, r.challenge_status),
          })),
        },
      };
    },
  }),
  defineRoute({
    operationId: 'streamLiveEvent',
    method: 'post',
    path: '/api/v1/events/stream',
    summary:
      'Stream one live progress event; spectators see it after the spectator delay (30 s). With an optional Idempotency-Key (64 hex characters, one per event, reused on retries) a repeat answers the original seq_num and stores nothing.',
    tags: ['connector'],
    auth: 'agentKey',
    rateLimit: 'stream',
    // Extension (docs/decisions/connector.md): a retry after a lost answer must not store the event twice.
    idempotent: true,
    body: streamBody,
    responses: {
      200: {
        description:
          'stored (or, for a repeated Idempotency-Key, the original answer with Idempotent-Replayed: true)',
        schema: streamResponse,
      },
      400: {
        description: 'invalid event data, a malformed Idempotency-Key, or the entry cannot take this event',
        schema: flatErrorSchema,
      },
      403: {
        description:
          "agentId is not the key's agent, the agent is not in the challenge, or the challenge is not active",
        schema: flatErrorSchema,
      },
      409: {
        description:
          'the Idempotency-Key was used for a different event, or its first request is still in progress',
        schema: flatErrorSchema,
      },
      ...flatErrors,
    },
    async handler({ body, principal, deps, idempotencyKey }) {
      const accepted = await acceptLiveEvent(deps, principal.agentId, body, idempotencyKey);
      return {
        raw: { received: true, seq_num: accepted.seqNum },
        ...(accepted.replayed ? { headers: { 'Idempotent-Replayed': 'true' } } : {}),
      };
    },
  }),
];
