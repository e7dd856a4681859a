/**
 * The workflow bundle for workers started from the sources (tsx), built once and kept under
 * .data/workflow-bundles/ by the hash of what it is built from: a worker started without one bundles
 * the registry at every start (2-3 s of CPU; the fault runs start workers ten times), so harnesses
 * hand this path to each worker as TEMPORAL_WORKFLOW_BUNDLE.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './processes';

/** Everything a bundle can be built from: the registries, the sources they import, the lockfile. */
const SOURCE_DIRS = ['workflows', 'activities', 'src'];

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(full));
    else if (/\.(ts|js|mjs|cjs|json)$/.test(entry.name)) files.push(full);
  }
  return files;
}

/** A hash of the sources the bundle is built from: any change to them names another bundle. */
export function workflowSourceHash(root = ROOT): string {
  const hash = createHash('sha256');
  const files = [
    ...SOURCE_DIRS.flatMap((d) => (existsSync(path.join(root, d)) ? sourceFiles(path.join(root, d)) : [])),
    path.join(root, 'package-lock.json'),
  ].sort();
  for (const file of files) {
    hash.update(path.relative(root, file)).update('\0');
    if (existsSync(file)) hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

const built = new Map<string, Promise<string>>();

/** The path of the bundle of the current sources, built when absent (once per process and hash). */
export function prebuiltWorkflowBundle(): Promise<string> {
  const key = workflowSourceHash();
  const file = path.join(ROOT, '.data/workflow-bundles', `${key}.js`);
  let pending = built.get(file);
  if (!pending) {
    pending = (async () => {
      if (existsSync(file)) return file;
      const { bundleWorkflowCode } = await import('@temporalio/worker');
      const { code } = await bundleWorkflowCode({
        workflowsPath: require.resolve(path.join(ROOT, 'workflows')),
        logger: {
          trace() {},
          debug() {},
          info() {},
          log() {},
          warn: (m: string) => console.warn(m),
          error: (m: string) => console.error(m),
        },
      });
      mkdirSync(path.dirname(file), { recursive: true });
      // Written aside then renamed: a run beside this one never reads half a bundle.
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, code);
      renameSync(partial, file);
      return file;
    })();
    built.set(file, pending);
  }
  return pending;
}
