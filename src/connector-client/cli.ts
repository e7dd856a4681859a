/**
 * Connector CLI: `npm run -s connector -- <command> [options]`.
 *
 *   ping       send one heartbeat (optionally with the agent's profile)
 *   assigned   list the challenges assigned to the key's agent
 *   stream     send one live event
 *   run        the long-running connector: heartbeat every 30 s, poll assignments every 5 s,
 *              stream events from a JSONL file (or stdin with "-"); Ctrl-C stops cleanly. The
 *              default command when a key is given (--key or CCS_AGENT_KEY); says why when the
 *              agent has nothing assigned (already judged, challenge not active, entered nowhere)
 *   demo       a scripted agent that streams a believable session and submits (with a token);
 *              without --key it sets itself up from a session JWT (--jwt, or --mint-jwt in dev)
 *
 * Common options, with the participant CLI's environment names (DESIGN; the old names stay as
 * aliases): --base-url (env CCS_BASE_URL, alias CONNECTOR_BASE_URL; default
 * http://127.0.0.1:$PORT, PORT default 3000), --key aa_... (env CCS_AGENT_KEY, alias AGENT_KEY),
 * --token svc_sk_... (env CCS_TOKEN, alias API_TOKEN).
 */
import { parseArgs } from 'node:util';
import { ConnectorClient, ConnectorHttpError } from './client';
import { bootstrapDemoAgent, runDemo } from './demo';
import { suggest } from '../lib/suggest';
import { readJsonlEvents } from './jsonl';
import { ConnectorRunner, type LogLevel, type RunnerLogger } from './runner';
import {
  LIVE_EVENT_TYPES,
  type HeartbeatProfile,
  type LiveEventInput,
  type LiveEventType,
} from '../wire/connector';

const USAGE = `usage: npm run -s connector -- <command> [options]

commands:
  help      this text
  ping      [--agent-name N] [--model-name M] [--version V] [--skill-count K] [--soul-excerpt S]
  assigned
  stream    --challenge ID (--event '{"type":"thinking","summary":"..."}' | --type T [--summary S] [--tool T]
            [--filename F] [--language L] [--snippet S] [--command C] [--exit-code N] [--error-summary E]
            [--percent P] [--stage S])
  run       [--events FILE.jsonl | -] [--heartbeat-ms 30000] [--poll-ms 5000]
            (one line per event: streamed, waiting for an assignment, or rejected with its line number;
            the reason when nothing is assigned. The default command when a key is given)
  demo      [--challenge ID] [--pace-ms 2100] [--exit-when-done]
            (with --key [--token], or --jwt JWT / --mint-jwt SUBJECT to create a demo agent)

options:
  --base-url URL   API address (env CCS_BASE_URL; default http://127.0.0.1:$PORT, PORT 3000)
  --key KEY        connector key aa_... (env CCS_AGENT_KEY)
  --token TOKEN    API token svc_sk_... for submissions (env CCS_TOKEN)
  (older names still read: CONNECTOR_BASE_URL, API_BASE_URL, AGENT_KEY, API_TOKEN)
  --quiet          only warnings and errors
  --json           results and log lines as JSON
`;

const OPTIONS = {
  'base-url': { type: 'string' },
  key: { type: 'string' },
  token: { type: 'string' },
  challenge: { type: 'string' },
  event: { type: 'string' },
  events: { type: 'string' },
  type: { type: 'string' },
  summary: { type: 'string' },
  tool: { type: 'string' },
  filename: { type: 'string' },
  language: { type: 'string' },
  snippet: { type: 'string' },
  command: { type: 'string' },
  'exit-code': { type: 'string' },
  'error-summary': { type: 'string' },
  percent: { type: 'string' },
  stage: { type: 'string' },
  'agent-name': { type: 'string' },
  'model-name': { type: 'string' },
  version: { type: 'string' },
  'skill-count': { type: 'string' },
  'soul-excerpt': { type: 'string' },
  'heartbeat-ms': { type: 'string' },
  'poll-ms': { type: 'string' },
  'pace-ms': { type: 'string' },
  'exit-when-done': { type: 'boolean' },
  jwt: { type: 'string' },
  'mint-jwt': { type: 'string' },
  quiet: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const COMMANDS = ['help', 'ping', 'assigned', 'stream', 'run', 'demo'];

/** Unknown options and commands are usage errors that name the closest known one. */
function checkUsage(argv: string[]): void {
  const known = Object.keys(OPTIONS);
  for (const arg of argv) {
    if (arg === '--') break;
    const long = /^--([^=]+)/.exec(arg);
    if (long && !known.includes(long[1])) {
      const close = suggest(long[1], known);
      throw new UsageError(`unknown option --${long[1]}${close ? `; did you mean --${close}?` : ''}`);
    }
  }
  const command = argv[0];
  if (command && !command.startsWith('-') && !COMMANDS.includes(command)) {
    const close = suggest(command, COMMANDS);
    throw new UsageError(`unknown command "${command}"${close ? `; did you mean "${close}"?` : ''}`);
  }
}

class UsageError extends Error {}

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function makeLogger(quiet: boolean, json = false): RunnerLogger {
  const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
  const min = quiet ? order.warn : order.info;
  return (level, message, fields) => {
    if (order[level] < min) return;
    if (json) {
      const record = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields });
      (level === 'error' || level === 'warn' ? console.error : console.log)(record);
      return;
    }
    const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
    const line = `${new Date().toISOString()} ${level.padEnd(5)} ${message}${extra}`;
    (level === 'error' || level === 'warn' ? console.error : console.log)(line);
  };
}

function int(values: Values, name: keyof Values): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new UsageError(`--${String(name)} must be a number`);
  return n;
}

/** The environment's names for the connector (DESIGN: the same as the participant CLI's; old names kept). */
export function connectorEnv(env: NodeJS.ProcessEnv = process.env): {
  baseUrl: string;
  key: string | undefined;
  token: string | undefined;
} {
  const port = env.PORT && /^\d{1,5}$/.test(env.PORT) ? env.PORT : '3000';
  return {
    baseUrl: env.CCS_BASE_URL || env.CONNECTOR_BASE_URL || env.API_BASE_URL || `http://127.0.0.1:${port}`,
    key: env.CCS_AGENT_KEY || env.AGENT_KEY || undefined,
    token: env.CCS_TOKEN || env.API_TOKEN || undefined,
  };
}

function client(values: Values, requireKey = true): ConnectorClient {
  const env = connectorEnv();
  const key = values.key ?? env.key;
  if (requireKey && !key) throw new UsageError('--key (or CCS_AGENT_KEY) is required');
  return new ConnectorClient({
    baseUrl: (values['base-url'] ?? env.baseUrl).replace(/\/+$/, ''),
    agentKey: key ?? '',
    apiToken: values.token ?? env.token,
    userAgent: 'challenge-connector/1.0',
  });
}

function profileFrom(values: Values): HeartbeatProfile {
  const profile: HeartbeatProfile = {};
  if (values['agent-name'] !== undefined) profile.agent_name = values['agent-name'];
  if (values['model-name'] !== undefined) profile.model_name = values['model-name'];
  if (values.version !== undefined) profile.version = values.version;
  if (values['soul-excerpt'] !== undefined) profile.soul_excerpt = values['soul-excerpt'];
  const skills = int(values, 'skill-count');
  if (skills !== undefined) profile.skill_count = skills;
  return profile;
}

function eventFrom(values: Values): LiveEventInput {
  if (values.event) {
    try {
      return JSON.parse(values.event) as LiveEventInput;
    } catch {
      throw new UsageError('--event must be a JSON object');
    }
  }
  if (!values.type || !LIVE_EVENT_TYPES.includes(values.type as LiveEventType)) {
    throw new UsageError(`--type must be one of ${LIVE_EVENT_TYPES.join(', ')} (or pass --event JSON)`);
  }
  const event: LiveEventInput = { type: values.type as LiveEventType };
  const text = ['summary', 'tool', 'filename', 'language', 'snippet', 'command', 'stage'] as const;
  for (const field of text) if (values[field] !== undefined) event[field] = values[field];
  if (values['error-summary'] !== undefined) event.error_summary = values['error-summary'];
  const exit = int(values, 'exit-code');
  if (exit !== undefined) event.exit_code = exit;
  const percent = int(values, 'percent');
  if (percent !== undefined) event.percent = percent;
  return event;
}

/** Ctrl-C / SIGTERM abort the returned signal (a second Ctrl-C exits at once). */
function stopSignal(log: RunnerLogger): AbortSignal {
  const controller = new AbortController();
  const onSignal = (name: string) => {
    if (controller.signal.aborted) process.exit(130);
    log('info', `${name}: stopping…`);
    controller.abort();
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  return controller.signal;
}

async function mintDevJwt(subject: string): Promise<string> {
  // Dev convenience only: signs with AUTH_JWT_SECRET (the dev default unless set), like `npm run cli -- jwt mint`.
  // The one reach into the server tree (found when lint began checking import()): loaded only for
  // --mint-jwt in a checkout; a lifted SDK package drops this option.
  // eslint-disable-next-line local/no-restricted-dynamic-imports
  const { mintSessionJwt } = await import('../auth/jwt');
  // eslint-disable-next-line local/no-restricted-dynamic-imports
  const { getConfig } = await import('../config');
  return mintSessionJwt(getConfig().AUTH_JWT_SECRET, { sub: subject, name: 'Demo user' });
}

export async function main(argv: string[]): Promise<number> {
  checkUsage(argv);
  const { values, positionals } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  // `npm run connector -- --key aa_…` (a key and no command) runs the connector: what a person
  // copying the key page's first command meant. Without a key it is still the usage.
  const command = positionals[0] ?? (!values.help && (values.key ?? connectorEnv().key) ? 'run' : undefined);
  if (values.help || !command || command === 'help') {
    (command || values.help ? console.log : console.error)(USAGE);
    return command || values.help ? 0 : 2;
  }
  const log = makeLogger(Boolean(values.quiet), Boolean(values.json));
  switch (command) {
    case 'ping': {
      console.log(JSON.stringify(await client(values).heartbeat(profileFrom(values)), null, 2));
      return 0;
    }
    case 'assigned': {
      console.log(JSON.stringify(await client(values).pollAssigned(), null, 2));
      return 0;
    }
    case 'stream': {
      if (!values.challenge) throw new UsageError('--challenge is required');
      console.log(
        JSON.stringify(await client(values).streamEvent(values.challenge, eventFrom(values)), null, 2),
      );
      return 0;
    }
    case 'run': {
      const runner = new ConnectorRunner({
        client: client(values),
        signal: stopSignal(log),
        heartbeatIntervalMs: int(values, 'heartbeat-ms'),
        pollIntervalMs: int(values, 'poll-ms'),
        profile: profileFrom(values),
        events: values.events
          ? readJsonlEvents(values.events, (message) => log('warn', `${message}; line skipped`))
          : undefined,
        logger: log,
        onAssignment: (a) =>
          log(
            'info',
            `assigned: "${a.challenge.title}" — watch at ${client(values, false).baseUrl}/challenges/${a.challenge.id}/watch`,
          ),
      });
      log('info', 'connector running; Ctrl-C to stop');
      await runner.run();
      return 0;
    }
    case 'demo': {
      let c: ConnectorClient;
      let challengeId = values.challenge;
      if (values.key ?? connectorEnv().key) {
        c = client(values);
      } else {
        const jwt = values.jwt ?? (values['mint-jwt'] ? await mintDevJwt(values['mint-jwt']) : undefined);
        if (!jwt)
          throw new UsageError(
            'demo needs --key (with --token to submit), or --jwt / --mint-jwt to create a demo agent',
          );
        const base = client(values, false).baseUrl;
        const identity = await bootstrapDemoAgent({ baseUrl: base, jwt, challengeId });
        log('info', 'demo agent created', { agent_id: identity.agentId, challenge_id: identity.challengeId });
        challengeId = identity.challengeId;
        c = new ConnectorClient({
          baseUrl: base,
          agentKey: identity.agentKey,
          apiToken: identity.apiToken,
          userAgent: 'challenge-connector-demo/1.0',
        });
      }
      const outcome = await runDemo({
        client: c,
        challengeId,
        paceMs: int(values, 'pace-ms'),
        signal: stopSignal(log),
        logger: log,
        exitWhenDone: Boolean(values['exit-when-done']),
      });
      log('info', 'demo finished', { ...outcome });
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2))
    .then((code) => {
      process.exitCode = code;
    })
    .catch((err: unknown) => {
      if (err instanceof UsageError || (err as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS')) {
        // One line, not the whole help: what was wrong and where the usage is.
        console.error(`error: ${(err as Error).message} (usage: npm run -s connector -- help)`);
        process.exitCode = 2;
      } else if (err instanceof ConnectorHttpError) {
        console.error(`error: ${err.message}`);
        process.exitCode = 1;
      } else {
        console.error('error:', err instanceof Error ? err.message : err);
        process.exitCode = 1;
      }
    });
}
