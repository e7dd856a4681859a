/**
 * A project folder as the CLI sends it (DESIGN "Multi-file programs and the competitor's second
 * pass"; Kaggle's CLI submits a folder): every file under the folder at its path relative to it,
 * but hidden ones, `.git`, `node_modules` and build outputs. Node built-ins only (CLI start-up).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Files of one program at most (the server refuses more). */
export const MAX_PROJECT_FILES = 64;

/** Folders of dependencies and build outputs, never sent (hidden ones, `.git` included, neither). */
const SKIPPED_FOLDERS = new Set([
  'node_modules',
  '__pycache__',
  'target',
  'dist',
  'build',
  'out',
  'bin',
  'obj',
  'venv',
]);
/** Compiled files, never sent. */
const SKIPPED_FILE = /\.(o|obj|a|so|dylib|dll|exe|class|jar|pyc|pyo|tsbuildinfo)$/i;

export interface ProjectFiles {
  files: { path: string; content: string }[];
  /** What was left out and why (binary files), for the listing. */
  skipped: string[];
}

/** Every file under `root` that belongs to the program, sorted by path; throws with the reason. */
export async function collectProjectFiles(root: string): Promise<ProjectFiles> {
  const files: { path: string; content: string }[] = [];
  const skipped: string[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.')) continue;
      const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) await walk(path.join(dir, entry.name), relative);
      } else if (entry.isFile()) {
        if (SKIPPED_FILE.test(entry.name)) continue;
        const bytes = await readFile(path.join(dir, entry.name));
        // A program is text: a binary file (a NUL byte) would not survive as a file's content.
        if (bytes.includes(0)) skipped.push(`${relative} (binary)`);
        else files.push({ path: relative, content: bytes.toString('utf8') });
      }
    }
  };
  await walk(root, '');
  if (files.length > MAX_PROJECT_FILES)
    throw new Error(
      `${root} holds ${files.length} files; a program has at most ${MAX_PROJECT_FILES} (hidden files, .git, node_modules and build outputs are already left out)`,
    );
  return { files, skipped };
}
