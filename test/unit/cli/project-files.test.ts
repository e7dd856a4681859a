/** Issue 40: `submit --dir` sends every file of the project but hidden ones, .git, node_modules and build outputs. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { collectProjectFiles } from '../../../src/cli/project-files';
import { sendingList } from '../../../src/cli/commands/participant';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'project-files-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function put(file: string, content: string | Buffer) {
  await mkdir(path.dirname(path.join(root, file)), { recursive: true });
  await writeFile(path.join(root, file), content);
}

test('every file at its path in the project, sorted; hidden, .git, node_modules and build outputs left out', async () => {
  await put('main.py', 'import lib.adder\n');
  await put('lib/adder.py', 'def add(a, b): return a + b\n');
  await put('lib/__init__.py', '');
  await put('.env', 'SECRET=1\n');
  await put('.git/config', '[core]\n');
  await put('node_modules/x/index.js', '');
  await put('lib/__pycache__/adder.cpython-311.pyc', 'x');
  await put('target/release/main', 'x');
  await put('Main.class', 'x');
  await put('data.bin', Buffer.from([1, 0, 2]));
  const project = await collectProjectFiles(root);
  expect(project.files.map((file) => file.path)).toEqual(['lib/__init__.py', 'lib/adder.py', 'main.py']);
  expect(project.files[1].content).toBe('def add(a, b): return a + b\n');
  expect(project.skipped).toEqual(['data.bin (binary)']);
  expect(sendingList(project.files, '.', project.skipped)).toBe(
    [
      'sending 3 files from ., all compiled as one program (entry: main.py):',
      '  lib/__init__.py',
      '  lib/adder.py',
      '  main.py  (entry)',
      'left out: data.bin (binary)',
    ].join('\n'),
  );
});

test('more than 64 files is refused with the reason', async () => {
  for (let i = 0; i < 65; i++) await put(`f${i}.py`, '');
  await expect(collectProjectFiles(root)).rejects.toThrow(/65 files; a program has at most 64/);
});
