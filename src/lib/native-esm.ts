/**
 * Loads an ES-module-only package (openid-client, oidc-provider) from this CommonJS code base.
 *
 * Node's own `require` loads ES modules (require(esm), Node ≥ 20.19). It is taken from
 * `process.getBuiltinModule` rather than `import`/`require` because both are rewritten by the test
 * runner: jest's module registry cannot load ES modules without --experimental-vm-modules, and a
 * dynamic `import()` in its sandbox throws. The package is therefore loaded by Node itself, outside
 * jest's registry, in tsx and in jest alike (docs/decisions/web.md).
 */
export function loadNativeEsm<T>(specifier: string): T {
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (!getBuiltin) throw new Error(`loading ${specifier} needs Node ≥ 20.19 (process.getBuiltinModule)`);
  const { createRequire } = getBuiltin('node:module') as typeof import('node:module');
  return createRequire(__filename)(specifier) as T;
}

/**
 * A deep copy of plain objects and arrays made in Node's main realm (functions and other values
 * kept as they are). Packages loaded by loadNativeEsm live there; under jest this code runs in a
 * sandbox realm whose object literals fail their "is a plain object" checks (oidc-provider's
 * configuration). Outside jest the realms are one and this is a plain copy.
 */
export function toNativeRealm<T>(value: T): T {
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule!;
  const vm = getBuiltin('node:vm') as typeof import('node:vm');
  const native = vm.runInThisContext('globalThis') as typeof globalThis;
  const copy = (v: unknown): unknown => {
    if (Array.isArray(v)) return native.Array.from(v, copy);
    if (
      v !== null &&
      typeof v === 'object' &&
      Object.getPrototypeOf(Object.getPrototypeOf(v) ?? {}) === null
    ) {
      const out = new native.Object() as Record<string, unknown>;
      for (const [k, inner] of Object.entries(v)) out[k] = copy(inner);
      return out;
    }
    return v;
  };
  return copy(value) as T;
}
