/**
 * Node flags every API process starts with (`npm start`'s scripts/run.sh, `npm run start:api`, the image,
 * docker-compose.yml, the bench's API processes; test/unit/api/node-flags.test.ts checks each).
 *
 * A young generation of up to 64 MB per semi-space (V8's default is 16 on this heap size): a read
 * answered in ~1 ms leaves garbage that a 16 MB nursery, scavenged every few ms at thousands of
 * requests a second, promoted while its requests were still in flight; the old space then filled and
 * was marked and compacted every few seconds. Measured (docs/benchmarks.md, session 27): peak
 * leaderboard reads 5,400–5,700 → 6,300–7,000 req/s, major GCs during the 12 s window at 70 % of
 * peak 1–3 → 0 in two of three runs. The cost is memory: up to 3 × 64 MB more per process.
 */
export const API_NODE_FLAGS = ['--max-semi-space-size=64'] as const;
