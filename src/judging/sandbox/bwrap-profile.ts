/**
 * The command line of one sandboxed process: the cgroups it joins, its rlimits (prlimit), its own
 * uid (setpriv) and the bwrap profile (namespaces, read-only root, /dev, /proc, tmpfs work folder,
 * seccomp). Pure: the launcher (launchers.ts) spawns what this builds.
 */
import { existsSync, realpathSync } from 'node:fs';
import type { CgroupSupport, RunCgroup } from './cgroups';
import {
  type LaunchSpec,
  OS_SANDBOX_DEFAULTS,
  type NativeCommand,
  type ProcessLimits,
  SANDBOX_SCRIPT_PATH,
  SANDBOX_WORK_DIR,
} from './sandbox-contract';
import type { UidBlock } from './uid-blocks';

/** File descriptors handed to bwrap: 3 the harness script (node only), 4 the seccomp program. */
export const SCRIPT_FD = 3;
export const SECCOMP_FD = 4;

/**
 * The bwrap arguments that build the sandbox's filesystem, devices and namespaces (no command yet).
 * `harness`: node and the harness script; `native`: the native supervisor, which runs as the pid
 * namespace's init (`--as-pid-1`) so that no bwrap init, of the program's uid and holding the
 * frame channel, is inside with the program (native-supervisor.c says why).
 */
export function bwrapProfile(
  binds: readonly { source: string; target: string; writable?: boolean }[],
  limits: ProcessLimits,
  env: Readonly<Record<string, string>>,
  kind: 'harness' | 'native',
): string[] {
  const args = [
    '--unshare-all',
    ...(kind === 'native' ? ['--as-pid-1'] : []),
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--uid',
    '65534',
    '--gid',
    '65534',
    '--hostname',
    'sandbox',
    '--clearenv',
  ];
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);
  for (const { source, target, writable } of binds)
    args.push(writable ? '--bind' : '--ro-bind', source, target);
  args.push(
    '--proc',
    '/proc',
    // A fixed-size /dev holding only the harmless devices (not bwrap's --dev: an unbounded tmpfs),
    // read-only once populated; /dev/shm is a bounded tmpfs charged to the run's memory cgroup.
    '--perms',
    '0755',
    '--size',
    String(OS_SANDBOX_DEFAULTS.devBytes),
    '--tmpfs',
    '/dev',
  );
  for (const device of ['null', 'zero', 'full', 'random', 'urandom']) {
    args.push('--dev-bind', `/dev/${device}`, `/dev/${device}`);
  }
  args.push(
    '--symlink',
    '/proc/self/fd',
    '/dev/fd',
    '--symlink',
    '/proc/self/fd/0',
    '/dev/stdin',
    '--symlink',
    '/proc/self/fd/1',
    '/dev/stdout',
    '--symlink',
    '/proc/self/fd/2',
    '/dev/stderr',
    '--perms',
    '1777',
    '--size',
    String(OS_SANDBOX_DEFAULTS.shmBytes),
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--size',
    String(limits.workDirBytes),
    '--tmpfs',
    SANDBOX_WORK_DIR,
    '--chdir',
    SANDBOX_WORK_DIR,
  );
  if (kind === 'harness') {
    // The harness script, copied into a read-only file inside the sandbox from a pipe.
    args.push('--perms', '0444', '--ro-bind-data', String(SCRIPT_FD), SANDBOX_SCRIPT_PATH);
  }
  args.push('--remount-ro', '/', '--seccomp', String(SECCOMP_FD));
  return args;
}

export function mb(value: number): number {
  return Math.ceil(value) * 1024 * 1024;
}

export function prlimitArgs(limits: ProcessLimits, applyNproc: boolean, native?: NativeCommand): string[] {
  const args = [
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    `--data=${mb(native?.addressSpaceMb ?? limits.memoryMb + OS_SANDBOX_DEFAULTS.dataOverheadMb)}`,
    `--as=${mb(native?.addressSpaceMb ?? limits.memoryMb + OS_SANDBOX_DEFAULTS.addressSpaceOverheadMb)}`,
    `--nofile=${limits.maxOpenFiles}`,
    `--fsize=${limits.maxFileBytes}`,
    '--core=0',
  ];
  if (applyNproc) args.push(`--nproc=${limits.maxProcesses}`);
  return args;
}

/** Joins the cgroups listed before `--` (by writing its own pid), then execs the rest. */
export const JOIN_CGROUPS =
  'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

export interface BwrapTools {
  bwrap: string;
  prlimit: string;
  setpriv: string | undefined;
  sh: string;
  nodePath: string;
  libraries: string[] | undefined;
  cgroups: CgroupSupport;
  seccomp: Buffer;
  uidBlock: UidBlock | undefined;
}

export const DEFAULT_ENV = { PATH: '/usr/bin', HOME: SANDBOX_WORK_DIR, TMPDIR: SANDBOX_WORK_DIR } as const;

/** The full argv of one sandboxed process: [join cgroups] → prlimit → [setpriv] → bwrap → command. */
export function sandboxArgv(
  tools: BwrapTools,
  spec: LaunchSpec,
  cgroup: RunCgroup | undefined,
  uid: number | undefined,
): { file: string; args: string[] } {
  const native = spec.command;
  const binds: { source: string; target: string; writable?: boolean }[] = [];
  let program: string[];
  if (native === undefined) {
    binds.push({ source: tools.nodePath, target: tools.nodePath });
    if (tools.libraries !== undefined) {
      for (const library of tools.libraries) binds.push({ source: realpathSync(library), target: library });
    } else {
      for (const dir of ['/lib', '/lib64', '/usr/lib', '/usr/lib64']) {
        if (existsSync(dir)) binds.push({ source: dir, target: dir });
      }
    }
    program = [tools.nodePath, ...spec.nodeFlags(SANDBOX_SCRIPT_PATH), SANDBOX_SCRIPT_PATH];
  } else {
    for (const hostPath of native.readOnlyPaths) binds.push({ source: hostPath, target: hostPath });
    binds.push(...(native.readOnlyBinds ?? []));
    for (const bind of native.writableBinds ?? []) binds.push({ ...bind, writable: true });
    program = [...native.argv];
  }
  const env = { ...DEFAULT_ENV, ...(native?.env ?? {}) };
  const inner = [
    tools.bwrap,
    ...bwrapProfile(binds, spec.limits, env, native === undefined ? 'harness' : 'native'),
    '--',
    ...program,
  ];
  const asUser =
    uid === undefined || tools.setpriv === undefined
      ? inner
      : [
          tools.setpriv,
          `--reuid=${uid}`,
          `--regid=${uid}`,
          '--clear-groups',
          '--inh-caps=-all',
          '--no-new-privs',
          '--',
          ...inner,
        ];
  const limited = [tools.prlimit, ...prlimitArgs(spec.limits, uid !== undefined, native), '--', ...asUser];
  if (cgroup === undefined) return { file: limited[0], args: limited.slice(1) };
  return { file: tools.sh, args: ['-c', JOIN_CGROUPS, 'sh', ...cgroup.procsFiles, '--', ...limited] };
}
