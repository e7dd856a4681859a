/**
 * Issue 40 at the build's own tier: each language's project of several files with folders
 * (test/helpers/multi-file-projects.ts) is detected, built in the wall with every file, and run;
 * JavaScript/TypeScript imports of anything but the submission's own files are compile errors.
 */
import {
  type BuildFolder,
  buildProgram,
  newBuildFolder,
  runProgram,
} from '../../../src/judging/program/build';
import { detectProgram } from '../../../src/judging/program/detect';
import { LANGUAGES } from '../../../src/judging/program/languages';
import { sandboxRuntime } from '../../../src/judging/sandbox/sandbox-runtime';
import { OUTSIDE_IMPORTS, PROJECTS, type Files } from '../../helpers/multi-file-projects';

jest.setTimeout(300_000);

const LIMITS = { timeLimitMs: 5_000, memoryMb: 256, outputBytes: 64 * 1024, stderrBytes: 16 * 1024 };
const folders: BuildFolder[] = [];

async function build(files: Files) {
  const detection = detectProgram({ content: '', files });
  if (detection.kind !== 'detected') throw new Error(detection.reason);
  const spec = LANGUAGES[detection.language];
  const folder = await newBuildFolder();
  folders.push(folder);
  return { spec, folder, built: await buildProgram(spec, detection.program, folder) };
}

beforeAll(async () => {
  expect((await sandboxRuntime()).launcher.isolation).toBe('bwrap');
});
afterAll(async () => {
  await Promise.all(folders.map((folder) => folder.remove()));
});

test.each(Object.keys(PROJECTS))('%s: every file is built into one program that runs', async (language) => {
  const { spec, folder, built } = await build(PROJECTS[language]);
  expect({ language, built }).toMatchObject({ language, built: { kind: 'built' } });
  const run = await runProgram(spec, folder, LIMITS, '1000000 2345678\n', { followed: false });
  expect({ language, stdout: run.stdout, stderr: run.stderr }).toEqual({
    language,
    stdout: '3345678\n',
    stderr: '',
  });
});

test.each(Object.keys(OUTSIDE_IMPORTS))('%s: a compile error naming the import', async (name) => {
  const { built } = await build(OUTSIDE_IMPORTS[name]);
  expect(built.kind).toBe('compile_error');
  expect(built.compileOutput).toMatch(/imports only Node's built-in modules and the submission's own files/);
});
