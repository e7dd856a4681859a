/**
 * A delivery attempt whose process stalls past its deadline while the receiver's answer is already
 * in the socket counts the answer, not a timeout (src/webhook-transport/attempt.ts). The CI beside
 * six busy loops (29 Nov 2026) saw every subscription of the production topology disabled at once:
 * the worker stalled, each in-flight attempt's expired timer ran before its socket was read, and
 * ten "timeouts" in a row disable a subscription (spec). The receiver runs in a process of its
 * own, so it answers while this one is blocked; the block ends once the receiver has sent its
 * answer and the deadline has passed, so the order the test needs never depends on timing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sendWebhookAttempt } from '../../src/webhook-transport';

let receiver: ChildProcess;
let port: number;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'webhook-stall-'));
  // Answers 204 and, once the answer is written to the socket, touches answered-<n>.
  receiver = spawn(
    process.execPath,
    [
      '-e',
      `const http = require('http'); const fs = require('fs'); let n = 0;
       const server = http.createServer((req, res) => {
         req.resume();
         req.on('end', () => { const i = ++n; res.on('finish', () => fs.writeFileSync(process.argv[1] + '/answered-' + i, '')); res.writeHead(204).end(); });
       });
       server.listen(0, '127.0.0.1', () => console.log(server.address().port));`,
      dir,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  port = await new Promise<number>((resolve) =>
    receiver.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
});

afterAll(() => {
  receiver?.kill();
  rmSync(dir, { recursive: true, force: true });
});

test('an answer that arrived before the deadline counts, though the sender ran only after it', async () => {
  const timeoutMs = 300;
  const attempt = sendWebhookAttempt({
    url: `http://127.0.0.1:${port}/hooks`,
    rawBody: '{"type":"test"}',
    allowPrivate: true,
    timeoutMs,
    // Built at the moment of sending: from then on this process stalls (a CPU-starved worker),
    // until the receiver has answered and the deadline is behind it.
    headers: () => {
      const sentAt = Date.now();
      setImmediate(() => {
        while (!existsSync(path.join(dir, 'answered-1')) || Date.now() < sentAt + timeoutMs + 100) {
          /* stalled */
        }
      });
      return { 'content-type': 'application/json' };
    },
  });
  const outcome = await attempt;
  expect(outcome).toMatchObject({ ok: true, statusCode: 204, error: null });
});
