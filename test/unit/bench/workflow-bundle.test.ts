/**
 * The harnesses' prebuilt workflow bundle is named by the hash of what it is built from, so a worker
 * never loads a bundle of other sources: any change under workflows/, activities/, src/ or to the
 * lockfile names another bundle; other files do not.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { workflowSourceHash } from '../../../bench/lib/workflow-bundle';

describe('workflowSourceHash', () => {
  let root: string;
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'workflow-bundle-'));
    write('workflows/index.ts', "export * from '../src/workflows/a';\n");
    write('src/workflows/a.ts', 'export async function a() {}\n');
    write('activities/index.ts', 'export const activities = {};\n');
    write('package-lock.json', '{}\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test('changes with every input of the bundle and with nothing else', () => {
    const first = workflowSourceHash(root);
    expect(workflowSourceHash(root)).toBe(first);

    write('README.md', 'not an input\n');
    write('docs/notes.md', 'not an input\n');
    expect(workflowSourceHash(root)).toBe(first);

    const seen = new Set([first]);
    for (const [rel, text] of [
      ['src/workflows/a.ts', 'export async function a() { return 1; }\n'],
      ['workflows/index.ts', "export * from '../src/workflows/a';\nexport const x = 1;\n"],
      ['activities/index.ts', 'export const activities = { b: 1 };\n'],
      ['package-lock.json', '{"lockfileVersion": 3}\n'],
      ['src/lib/new-module.ts', 'export const added = true;\n'],
    ] as const) {
      write(rel, text);
      const next = workflowSourceHash(root);
      expect(seen.has(next)).toBe(false);
      seen.add(next);
    }
  });

  test('a file moved to another path names another bundle', () => {
    const before = workflowSourceHash(root);
    rmSync(path.join(root, 'src/workflows/a.ts'));
    write('src/workflows/b.ts', 'export async function a() {}\n');
    expect(workflowSourceHash(root)).not.toBe(before);
  });
});
