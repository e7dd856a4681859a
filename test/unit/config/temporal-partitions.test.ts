import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * Every Temporal server the service starts (the dev server of `npm start`, the tests and the
 * bench; the server on PostgreSQL of the topology run and docker-compose.yml) gives each task
 * queue one partition (docs/decisions/platform.md, "One partition per task queue"). With the
 * default four, a workflow's first task could sit in a partition none of the worker's two
 * non-sticky pollers was on, over a second with the worker idle (bench/arena.ts: 3 of 6 runs).
 */
const ROOT = path.resolve(__dirname, '../../..');
const KEYS = ['matching.numTaskqueueReadPartitions', 'matching.numTaskqueueWritePartitions'];

test('the dynamic config of the server on PostgreSQL pins one partition per task queue', () => {
  const config = parse(readFileSync(path.join(ROOT, 'temporal/dynamicconfig.yaml'), 'utf8')) as Record<
    string,
    { value: unknown; constraints?: unknown }[]
  >;
  for (const key of KEYS) expect(config[key]).toEqual([{ value: 1 }]);
});

test('the dev server starts with one partition per task queue', () => {
  const script = readFileSync(path.join(ROOT, 'temporal/dev-server.sh'), 'utf8');
  for (const key of KEYS) expect(script).toContain(`--dynamic-config-value ${key}=1`);
});
