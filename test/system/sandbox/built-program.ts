/**
 * One C program built inside the wall for a sandbox test file: the wall is proven to be bubblewrap,
 * the program is built once before the file's tests, and its folder removed after them.
 */
import { type BuildFolder, buildProgram, newBuildFolder } from '../../../src/judging/program/build';
import { LANGUAGES } from '../../../src/judging/program/languages';
import { sandboxRuntime } from '../../../src/judging/sandbox/sandbox-runtime';

/** Registers the file's beforeAll/afterAll; the returned function gives the built folder. */
export function useBuiltCProgram(source: string): () => BuildFolder {
  let folder: BuildFolder | undefined;
  beforeAll(async () => {
    expect((await sandboxRuntime()).launcher.isolation).toBe('bwrap');
    folder = await newBuildFolder();
    expect(await buildProgram(LANGUAGES.c, source, folder)).toMatchObject({ kind: 'built' });
  });
  afterAll(async () => {
    await folder?.remove();
  });
  return () => folder!;
}
