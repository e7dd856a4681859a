/**
 * The games' only randomness: a small seeded generator (mulberry32), so that the same seed and the
 * same actions give the same game on the server, in the CLI and when a replay is re-simulated.
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
}

export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n) };
}

/** Largest seed (seeds are non-negative 31-bit integers). */
export const MAX_SEED = 0x7fffffff;
