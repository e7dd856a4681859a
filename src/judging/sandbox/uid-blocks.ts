/**
 * Host uid blocks for sandboxes, claimed with a kernel file lock so that two workers on one host
 * (or two test processes) never share a uid: RLIMIT_NPROC counts per uid, and a uid shared with
 * another worker's sandbox would let one run count, signal or outlive the other's processes.
 *
 * A block is held by a small `flock … cat` child whose stdin is a pipe from this process: the lock
 * lives exactly as long as this process (when it dies, for any reason, the pipe closes, cat exits
 * and the kernel drops the lock). Workers in several containers of one host must share the lock
 * folder (`JUDGE_UID_LOCK_DIR`, a host volume in docker-compose.yml).
 */
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { SandboxUnavailableError } from '../errors';

export interface UidBlock {
  first: number;
  size: number;
  /** The lock file held for this block. */
  lockFile: string;
}

const BUSY_EXIT = 75;

function tryLock(flock: string, lockFile: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      flock,
      [
        '--nonblock',
        '--conflict-exit-code',
        String(BUSY_EXIT),
        '--no-fork',
        lockFile,
        'sh',
        '-c',
        'echo locked; exec cat',
      ],
      {
        env: { PATH: '/usr/bin:/bin' },
        stdio: ['pipe', 'pipe', 'ignore'],
      },
    );
    let settled = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (settled || !chunk.includes('locked')) return;
      settled = true;
      // Held until this process ends: nothing here may keep the event loop alive.
      child.unref();
      (child.stdin as unknown as { unref?: () => void }).unref?.();
      (child.stdout as unknown as { unref?: () => void }).unref?.();
      child.stdout.destroy();
      resolve(true);
    });
    child.on('error', (error) => {
      if (!settled) reject(error);
      settled = true;
    });
    child.on('exit', (code) => {
      if (settled) return;
      settled = true;
      if (code === BUSY_EXIT) resolve(false);
      else reject(new Error(`flock exited with ${code}`));
    });
  });
}

/**
 * Claims the first free block, starting at one derived from the pid (so that workers starting
 * together do not all try the same block first). Throws SandboxUnavailableError when none is free.
 */
export async function claimUidBlock(options: {
  flock: string;
  lockDir: string;
  uidBase: number;
  blockSize: number;
  blocks: number;
}): Promise<UidBlock> {
  await mkdir(options.lockDir, { recursive: true, mode: 0o700 });
  const start = process.pid % options.blocks;
  for (let i = 0; i < options.blocks; i++) {
    const index = (start + i) % options.blocks;
    const first = options.uidBase + index * options.blockSize;
    const lockFile = path.join(options.lockDir, `uids-${first}.lock`);
    if (await tryLock(options.flock, lockFile)) return { first, size: options.blockSize, lockFile };
  }
  throw new SandboxUnavailableError(
    `every sandbox uid block under ${options.lockDir} is held by another worker (${options.blocks} blocks)`,
  );
}
