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
 *
 * An old generation that starts at 256 MB (V8 starts it small and grows it collection by
 * collection): the read bench's API holds ~55 MB live and promotes a few MB a second at load,
 * so from a small start it was marked and compacted 2–5 times while the 12 s window at 70 % of peak
 * ran (each a 5–9 ms pause and up to 20 ms of incremental steps), and every window with a major
 * collection missed the p99 ≤ 25 ms target (session 29: 1–4 majors → p99 29–65 ms; none → 17–29 ms;
 * with the flag 0 majors in both stores' windows). The cost is memory: the old space may reach
 * 256 MB before it is collected.
 */
export const API_NODE_FLAGS = ['--max-semi-space-size=64', '--initial-old-space-size=256'] as const;
