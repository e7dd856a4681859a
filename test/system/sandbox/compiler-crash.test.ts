/**
 * A compiler the host stops at its own limits is a toolchain crash: retried once in a fresh
 * sandbox, and only the same input crashing it again is that input's compile error, with a reason
 * that names the toolchain failure (DESIGN, "Verdicts come from the host"). The limits are shrunk
 * so that g++ on <regex> crosses them; a small C program stays under them.
 */
import {
  type BuildFolder,
  COMPILE_LIMITS,
  buildProgram,
  newBuildFolder,
  retriedOnceOnCrash,
} from '../../../src/judging/program/build';
import { LANGUAGES } from '../../../src/judging/program/languages';
import { sandboxRuntime } from '../../../src/judging/sandbox/sandbox-runtime';

jest.setTimeout(120_000);

const TIGHT = { ...COMPILE_LIMITS, cpuMs: 100, wallMs: 2_000 };
const folders: BuildFolder[] = [];
async function folder(): Promise<BuildFolder> {
  const created = await newBuildFolder();
  folders.push(created);
  return created;
}

beforeAll(async () => {
  expect((await sandboxRuntime()).launcher.isolation).toBe('bwrap');
});
afterAll(async () => {
  await Promise.all(folders.map((created) => created.remove()));
});

test('a compiler stopped at its time limit twice is the input’s compile error, naming why', async () => {
  const heavy = '#include <regex>\n#include <iostream>\nint main() { std::regex r("a+"); std::cout << 1; }\n';
  const built = await buildProgram(LANGUAGES.cpp, heavy, await folder(), undefined, TIGHT);
  expect(built).toMatchObject({
    kind: 'compile_error',
    reason: 'the C++ (G++) compiler exceeded its time limit twice, each time in a fresh sandbox',
  });
});

test('within its limits the same path builds', async () => {
  const light = 'int main(void) { return 0; }\n';
  expect(
    await buildProgram(LANGUAGES.c, light, await folder(), undefined, { ...COMPILE_LIMITS }),
  ).toMatchObject({
    kind: 'built',
  });
});

test('a crash is retried exactly once, and the retry’s outcome counts', async () => {
  const outcomes = [{ crash: 'exceeded its time limit' }, { crash: undefined }];
  let calls = 0;
  expect(await retriedOnceOnCrash(async () => outcomes[calls++])).toEqual({ crash: undefined });
  expect(calls).toBe(2);
  calls = 0;
  const always = async () => ({ crash: `attempt ${++calls}` });
  expect(await retriedOnceOnCrash(always)).toEqual({ crash: 'attempt 2' });
  expect(calls).toBe(2);
  calls = 0;
  expect(await retriedOnceOnCrash(async () => ({ crash: undefined, n: ++calls }))).toEqual({
    crash: undefined,
    n: 1,
  });
});
