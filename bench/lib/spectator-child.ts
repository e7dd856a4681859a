/**
 * Spectator clients for bench/spectators.ts, in a process of their own (never the API's event
 * loop): opens `streams` Server-Sent Events connections to one URL, spread over several loopback
 * source addresses (127.0.0.2, …: per-IP limits apply to spectators), and follows them.
 *
 * Per stream it checks that message ids run 1, 2, 3… with no gap and no repeat (feed positions are
 * gap-free per challenge); on every `sampleEvery`-th stream it also parses each message and
 * records release → receipt latency (`released_at` is the database's clock, on this machine).
 * Prints `SPECTATORS_OPEN <n>` as streams connect, and on SIGTERM (or after `maxMs`) one line
 * `SPECTATORS_RESULT <json>`.
 */
import http from 'node:http';

interface ChildSpec {
  url: string;
  streams: number;
  /** Source addresses to spread the streams over. */
  addresses: string[];
  sampleEvery: number;
  maxMs: number;
  /** Connections opened at once (the API's accept queue is not what is measured). */
  openConcurrency: number;
}

const spec: ChildSpec = JSON.parse(process.argv[2] ?? '{}');
const target = new URL(spec.url);

interface StreamState {
  last: number;
  received: number;
  outOfOrder: number;
  sampled: boolean;
  status: number;
  ended: boolean;
}

const states: StreamState[] = [];
const latencies: number[] = [];
let open = 0;
let failed = 0;
let firstError: string | undefined;

function follow(i: number): Promise<void> {
  const state: StreamState = {
    last: 0,
    received: 0,
    outOfOrder: 0,
    sampled: i % spec.sampleEvery === 0,
    status: 0,
    ended: false,
  };
  states.push(state);
  return new Promise((resolve) => {
    const req = http.get(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        headers: { accept: 'text/event-stream' },
        localAddress: spec.addresses[i % spec.addresses.length],
        agent: false,
      },
      (res) => {
        state.status = res.statusCode ?? 0;
        if (res.statusCode !== 200) {
          failed += 1;
          firstError ??= `HTTP ${res.statusCode}`;
          res.resume();
          resolve();
          return;
        }
        open += 1;
        resolve();
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (!block.startsWith('id: ')) continue; // comments, retry
            const nl = block.indexOf('\n');
            const id = Number(block.slice(4, nl));
            if (id !== state.last + 1) state.outOfOrder += 1;
            state.last = id;
            state.received += 1;
            if (state.sampled) {
              const data = JSON.parse(block.slice(nl + 7)) as { released_at: string };
              latencies.push(Date.now() - Date.parse(data.released_at));
            }
          }
        });
        res.on('end', () => (state.ended = true));
        res.on('error', () => (state.ended = true));
      },
    );
    req.on('error', (err) => {
      failed += 1;
      firstError ??= err.message;
      state.ended = true;
      resolve();
    });
  });
}

async function main(): Promise<void> {
  let next = 0;
  const opener = async () => {
    while (next < spec.streams) await follow(next++);
  };
  const reporter = setInterval(() => process.stdout.write(`SPECTATORS_OPEN ${open} failed ${failed}\n`), 500);
  await Promise.all(Array.from({ length: spec.openConcurrency }, opener));
  process.stdout.write(`SPECTATORS_OPEN ${open} failed ${failed}\n`);
  const finish = () => {
    clearInterval(reporter);
    const lasts = states.map((s) => s.last);
    process.stdout.write(
      `SPECTATORS_RESULT ${JSON.stringify({
        open,
        failed,
        firstError,
        ended: states.filter((s) => s.ended).length,
        outOfOrder: states.reduce((a, s) => a + s.outOfOrder, 0),
        received: states.reduce((a, s) => a + s.received, 0),
        minLast: Math.min(...lasts),
        minReceived: Math.min(...states.map((s) => s.received)),
        maxLast: Math.max(...lasts),
        latenciesMs: latencies,
      })}\n`,
      () => process.exit(0),
    );
  };
  process.once('SIGTERM', finish);
  setTimeout(finish, spec.maxMs).unref();
}

void main();
