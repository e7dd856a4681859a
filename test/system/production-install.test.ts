/**
 * The production install (the image's `npm ci --omit=dev`) succeeds from a folder holding only
 * package.json and the lockfile: `npm ci` refuses a lockfile that is out of step with package.json
 * or misses a platform's optional package, so this is the proof that the image can be built.
 * Packages come from npm's cache when it has them (`--prefer-offline`), from the registry otherwise.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

describe('production install from a clean folder', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'prod-install-'));
    for (const file of ['package.json', 'package-lock.json'])
      copyFileSync(path.join(ROOT, file), path.join(dir, file));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('`npm ci --omit=dev` installs the runtime dependencies and none of the development ones', () => {
    const install = spawnSync('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production', npm_config_update_notifier: 'false' },
    });
    expect({ status: install.status, stderr: install.status === 0 ? '' : install.stderr }).toEqual({
      status: 0,
      stderr: '',
    });

    // Every runtime dependency is installed, and the native one loads (the Temporal core bridge).
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const absent = Object.keys(manifest.dependencies).filter(
      (name) => !existsSync(path.join(dir, 'node_modules', name, 'package.json')),
    );
    expect(absent).toEqual([]);
    const load = spawnSync(
      process.execPath,
      ['-e', "require('@temporalio/core-bridge'); console.log('LOADED')"],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    expect(load.stderr).toBe('');
    expect(load.stdout.trim()).toBe('LOADED');

    for (const devOnly of ['jest', 'typescript', '@swc/jest', 'eslint'])
      expect(existsSync(path.join(dir, 'node_modules', devOnly))).toBe(false);
  }, 600_000);
});
