import type { Queryable } from '../pool';

/**
 * A query function of this layer without its connection: what a feature store's method looks like
 * (a store binds this layer's functions to a pool or a transaction; docs/testing.md, "Typed stores").
 */
export type Bound<F> = F extends (db: Queryable, ...args: infer A) => infer R ? (...args: A) => R : never;
