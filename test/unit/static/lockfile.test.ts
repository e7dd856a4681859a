/**
 * `npm ci` installs exactly the lockfile and refuses one that misses a package any platform may
 * need. npm 11 drops the other platforms' optional packages (@swc/core-darwin-*, …) when it
 * rewrites the lockfile over an installed node_modules, which broke `npm ci` everywhere; this
 * catches that offline, before CI or the image build does (the install itself is proven by
 * test/system/production-install.test.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

interface LockedPackage {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
};
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as LockedPackage;

/** Node's lookup from a locked package's folder: its own node_modules, then each parent's. */
function resolveFrom(location: string, name: string): string | undefined {
  let dir = location;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return undefined;
    const parent = dir.lastIndexOf('/node_modules/');
    dir = parent === -1 ? '' : dir.slice(0, parent);
  }
}

describe('package-lock.json', () => {
  it('is a v3 lockfile whose root lists exactly package.json’s dependencies', () => {
    expect(lock.lockfileVersion).toBe(3);
    const root = lock.packages[''];
    expect(root.dependencies).toEqual(manifest.dependencies);
    expect(root.devDependencies).toEqual(manifest.devDependencies);
  });

  it('locks every dependency of every locked package, optional ones for every platform included', () => {
    const missing: string[] = [];
    for (const [location, pkg] of Object.entries(lock.packages)) {
      const wanted = {
        ...pkg.dependencies,
        ...pkg.optionalDependencies,
        ...(location === '' ? pkg.devDependencies : {}),
      };
      for (const name of Object.keys(wanted)) {
        if (!resolveFrom(location, name)) missing.push(`${location || '(root)'} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('names @swc/core’s binaries for macOS, Windows and Linux (the entries npm 11 dropped)', () => {
    const optional = Object.keys(lock.packages['node_modules/@swc/core'].optionalDependencies ?? {});
    expect(optional.some((n) => n.includes('darwin'))).toBe(true);
    expect(optional.some((n) => n.includes('win32'))).toBe(true);
    for (const name of optional) expect(lock.packages[`node_modules/${name}`]).toBeDefined();
  });
});
