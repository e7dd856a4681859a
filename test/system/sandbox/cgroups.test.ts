/**
 * The sandbox's cgroups on this machine (src/judging/sandbox/cgroups.ts): a run's group is always
 * a new one, even when the module is loaded again in the same process (jest loads it once per test
 * file in a worker, so its counter starts again while the previous file's groups may still exist).
 */
import { readFile } from 'node:fs/promises';
import type * as Cgroups from '../../../src/judging/sandbox/cgroups';

jest.setTimeout(60_000);

function freshModule(): typeof Cgroups {
  let loaded: typeof Cgroups | undefined;
  jest.isolateModules(() => {
    loaded = jest.requireActual<typeof Cgroups>('../../../src/judging/sandbox/cgroups');
  });
  return loaded!;
}

const MB = 1024 * 1024;

it('a second copy of the module in the same process makes new groups, never reusing one with its old limits', async () => {
  const first = freshModule();
  const support = await first.detectCgroupSupport();
  if (support.version === 'none') throw new Error(`no cgroups here: ${support.reason}`);
  const limits = { memoryBytes: 64 * MB, maxProcesses: 8, cpuCores: 1 };
  const earlier = (await first.createRunCgroup(support, limits))!;
  try {
    // Before the fix this was `run-<pid>-1` again: on cgroup v1 the larger memory limit was refused
    // with EINVAL (the old group's memsw limit, 64 MB, must stay ≥ the memory limit).
    const later = (await freshModule().createRunCgroup(support, { ...limits, memoryBytes: 128 * MB }))!;
    try {
      expect(later.procsFiles).not.toEqual(earlier.procsFiles);
      for (const file of later.procsFiles) expect(earlier.procsFiles).not.toContain(file);
      const memoryDir = later.procsFiles.find((file) => file.includes('/memory/'));
      if (memoryDir !== undefined) {
        const limit = await readFile(memoryDir.replace(/cgroup\.procs$/, 'memory.limit_in_bytes'), 'utf8');
        expect(Number(limit)).toBe(128 * MB);
      }
    } finally {
      await later.destroy();
    }
  } finally {
    await earlier.destroy();
  }
});
