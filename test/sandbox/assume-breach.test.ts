/**
 * Assume breach: every program here runs inside the OS sandbox with the whole Node runtime
 * (no vm context, no permission flags), as if a submission had already broken every inner layer.
 * Each attack must fail, and each test asserts exactly how the kernel or the wall stopped it.
 */
import dgram from 'node:dgram';
import { readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { JUDGE_CONFIG_LIMITS } from '../../src/judging/config';
import { OS_SANDBOX_DEFAULTS, SANDBOX_SCRIPT_PATH } from '../../src/judging/sandbox/os-sandbox';
import { SANDBOX_LIMITS, runInSandbox, runScriptInSandbox } from '../../src/judging/sandbox/run-in-sandbox';
import { EXIT_BY_SIGNAL, PRELUDE, osSandbox, runHostile } from './hostile';

jest.setTimeout(60_000);

const temporalPort = Number((process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7244').split(':').pop());

let uids: [number, number] = [0, -1];

/** Processes still running under one of this process's sandbox uids (there must be none after a run). */
function sandboxProcessesLeft(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      const zombie = /^State:\s+Z/m.test(status);
      if (!zombie && uid >= uids[0] && uid <= uids[1]) pids.push(Number(entry));
    } catch {
      // exited while listing
    }
  }
  return pids;
}

beforeAll(async () => {
  // Fails here, with the reason, on a machine without the sandbox: the suite must not pass vacuously.
  const sandbox = await osSandbox();
  expect(sandbox.isolation).toBe('bwrap');
  if (sandbox.report.uids) uids = sandbox.report.uids;
});

afterEach(async () => {
  // Once bwrap's init exits the kernel tears the pid namespace down: whatever the program started
  // is killed, asynchronously. Wait for that, and fail if anything survives it.
  const deadline = Date.now() + 10_000;
  while (sandboxProcessesLeft().length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(sandboxProcessesLeft()).toEqual([]);
});

describe('back-to-back runs on one slot', () => {
  it('all start and stay well under the task limit', async () => {
    // Node 20 hangs at startup (it does not fail) when it cannot create its platform threads. A
    // script that launched right after two self-checks on one slot hit that with a limit of 32
    // tasks, because the previous runs' last tasks leave the kernel's count a second or two late.
    // This check does not reproduce that timing reliably; it guards the headroom it relies on.
    for (let i = 0; i < 8; i++) {
      const run = await runHostile(
        `${PRELUDE} report({ run: ${i}, threads: fs.readdirSync('/proc/self/task').length });`,
      );
      expect(run.exitCode).toBe(0);
      expect(run.report.run).toBe(i);
      expect(run.report.threads).toBeLessThan(OS_SANDBOX_DEFAULTS.maxProcesses / 2);
    }
  });
});

describe('network: nothing but a private loopback', () => {
  let api: net.Server;
  let apiPort: number;
  let apiConnections = 0;
  let udp: dgram.Socket;
  let udpPort: number;
  let udpDatagrams = 0;

  beforeAll(async () => {
    api = net.createServer((socket) => {
      apiConnections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    apiPort = (api.address() as net.AddressInfo).port;
    udp = dgram.createSocket('udp4');
    udp.on('message', () => (udpDatagrams += 1));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    udpPort = udp.address().port;
  });

  afterAll(async () => {
    await new Promise((resolve) => api.close(resolve));
    udp.close();
  });

  it('refuses TCP to the host services, IPv6 loopback, private and public addresses; UDP and DNS go nowhere', async () => {
    // The host side listens: a refusal inside is the wall, not a server that is down.
    await new Promise<void>((resolve, reject) =>
      net
        .connect(apiPort, '127.0.0.1')
        .on('connect', function (this: net.Socket) {
          this.destroy();
          resolve();
        })
        .on('error', reject),
    );
    const run = await runHostile(`${PRELUDE}
      const tcp = (host, port) => new Promise((resolve) => {
        const socket = net.connect({ host, port });
        socket.on('connect', () => { socket.destroy(); resolve('connected'); });
        socket.on('error', (e) => resolve(e.code));
        setTimeout(() => resolve('no answer'), 3000);
      });
      const udp = (host, port) => new Promise((resolve) => {
        const socket = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
        socket.send('hello', port, host, (e) => { socket.close(); resolve(e ? e.code : 'sent'); });
      });
      (async () => report({
        postgres: await tcp('127.0.0.1', 5432),
        api: await tcp('127.0.0.1', ${apiPort}),
        temporal: await tcp('127.0.0.1', ${temporalPort}),
        apiIpv6: await tcp('::1', ${apiPort}),
        privateAddress: await tcp('10.0.0.1', 80),
        privateAddress2: await tcp('192.168.1.1', 443),
        publicAddress: await tcp('1.1.1.1', 443),
        udpLoopback: await udp('127.0.0.1', ${udpPort}),
        udpPublic: await udp('8.8.8.8', 53),
        udpIpv6: await udp('::1', ${udpPort}),
        lookup: await new Promise((r) => dns.lookup('example.com', (e) => r(e ? e.code : 'resolved'))),
        resolve: await new Promise((r) => dns.resolve4('example.com', (e) => r(e ? e.code : 'resolved'))),
        interfaces: Object.keys(require('os').networkInterfaces()),
      }))();
    `);
    expect(run.exitCode).toBe(0);
    expect(run.report).toEqual({
      postgres: 'ECONNREFUSED',
      api: 'ECONNREFUSED',
      temporal: 'ECONNREFUSED',
      apiIpv6: 'ECONNREFUSED',
      privateAddress: 'ENETUNREACH',
      privateAddress2: 'ENETUNREACH',
      publicAddress: 'ENETUNREACH',
      // A datagram to 127.0.0.1 stays on the sandbox's own loopback: the host socket gets nothing.
      udpLoopback: 'sent',
      udpPublic: 'ENETUNREACH',
      udpIpv6: 'sent',
      lookup: 'EAI_AGAIN',
      resolve: 'ECONNREFUSED',
      interfaces: ['lo'],
    });
    expect(apiConnections).toBe(1); // only the host's own check above
    expect(udpDatagrams).toBe(0);
  });
});

describe('host files and other processes: not there', () => {
  it('cannot read secrets, the repository, other processes or the database socket', async () => {
    const run = await runHostile(`${PRELUDE}
      report({
        passwd: attempt(() => fs.readFileSync('/etc/passwd', 'utf8')),
        shadow: attempt(() => fs.readFileSync('/etc/shadow', 'utf8')),
        repository: attempt(() => fs.readFileSync(${JSON.stringify(`${process.cwd()}/package.json`)}, 'utf8')),
        workerEnviron: attempt(() => fs.readFileSync('/proc/${process.pid}/environ', 'utf8')),
        workerMem: attempt(() => fs.readFileSync('/proc/${process.pid}/mem')),
        initEnviron: attempt(() => fs.readFileSync('/proc/1/environ', 'utf8')),
        postgresSocket: attempt(() => fs.statSync('/var/run/postgresql/.s.PGSQL.5432')),
        postgresSocketDir: attempt(() => fs.readdirSync('/run/postgresql')),
        root: fs.readdirSync('/').sort(),
        binaries: fs.readdirSync('/usr/bin'),
        processes: fs.readdirSync('/proc').filter((entry) => /^\\d+$/.test(entry)),
        uid: process.getuid(),
        gid: process.getgid(),
        capabilities: fs.readFileSync('/proc/self/status', 'utf8').match(/^CapEff:\\s+(\\w+)/m)[1],
        noNewPrivileges: fs.readFileSync('/proc/self/status', 'utf8').match(/^NoNewPrivs:\\s+(\\d)/m)[1],
        environment: process.env,
        hostname: require('os').hostname(),
      });
    `);
    expect(run.exitCode).toBe(0);
    const { initEnviron, root, ...rest } = run.report;
    expect(rest).toEqual({
      passwd: 'ENOENT',
      shadow: 'ENOENT',
      repository: 'ENOENT',
      workerEnviron: 'ENOENT',
      workerMem: 'ENOENT',
      postgresSocket: 'ENOENT',
      postgresSocketDir: 'ENOENT',
      binaries: ['node'],
      processes: ['1', '2'], // bwrap's init and this program: nothing outside the pid namespace
      uid: 65534,
      gid: 65534,
      capabilities: '0000000000000000',
      noNewPrivileges: '1',
      environment: { PATH: '/usr/bin', HOME: '/work', TMPDIR: '/work', PWD: '/work' },
      hostname: 'sandbox',
    });
    // The sandbox's init was started with an empty environment: nothing of the worker's.
    expect(
      String(initEnviron)
        .split('\0')
        .filter(Boolean)
        .every((entry) => entry.startsWith('PWD=')),
    ).toBe(true);
    expect(root.filter((entry: string) => !['lib', 'lib64'].includes(entry))).toEqual([
      'dev',
      'proc',
      'sandbox',
      'usr',
      'work',
    ]);
  });
});

describe('writes: only the private work folder, within limits, gone after the run', () => {
  it('cannot write outside the work folder or into the harness', async () => {
    const run = await runHostile(`${PRELUDE}
      report({
        root: attempt(() => fs.writeFileSync('/evil', 'x')),
        binaries: attempt(() => fs.writeFileSync('/usr/bin/evil', 'x')),
        harness: attempt(() => fs.writeFileSync(${JSON.stringify(SANDBOX_SCRIPT_PATH)}, 'x')),
        tmp: attempt(() => fs.mkdirSync('/tmp')),
        procEnviron: attempt(() => fs.writeFileSync('/proc/1/environ', 'x')),
        work: attempt(() => fs.writeFileSync('/work/ok.txt', 'x')),
      });
    `);
    expect(run.report).toEqual({
      root: 'EROFS',
      binaries: 'EROFS',
      harness: 'EROFS',
      tmp: 'EROFS',
      procEnviron: 'EACCES',
      work: 'allowed',
    });
  });

  it('stops a file at the file-size limit (EFBIG) and the folder at its size (ENOSPC)', async () => {
    // Node ignores SIGXFSZ, so the kernel's RLIMIT_FSIZE shows up as EFBIG.
    const run = await runHostile(`${PRELUDE}
      const big = attempt(() => fs.writeFileSync('/work/big', Buffer.alloc(${OS_SANDBOX_DEFAULTS.maxFileBytes * 2})));
      const size = fs.statSync('/work/big').size;
      let files = 0;
      const fill = attempt(() => { for (; files < 100; files++) fs.writeFileSync('/work/f' + files, Buffer.alloc(${OS_SANDBOX_DEFAULTS.maxFileBytes - 1})); });
      report({ big, size, fill, files });
    `);
    expect(run.report.big).toBe('EFBIG');
    expect(run.report.size).toBe(OS_SANDBOX_DEFAULTS.maxFileBytes);
    expect(run.report.fill).toBe('ENOSPC');
    expect(run.report.files).toBeLessThan(
      OS_SANDBOX_DEFAULTS.workDirBytes / (OS_SANDBOX_DEFAULTS.maxFileBytes - 1),
    );
  });

  it('leaves nothing for the next run', async () => {
    const first = await runHostile(`${PRELUDE}
      fs.writeFileSync('/work/left-behind', 'for the next one');
      report({ wrote: fs.readdirSync('/work') });
    `);
    expect(first.report).toEqual({ wrote: ['left-behind'] });
    const second = await runHostile(`${PRELUDE}
      report({ found: attempt(() => fs.readFileSync('/work/left-behind', 'utf8')), listing: fs.readdirSync('/work') });
    `);
    expect(second.report).toEqual({ found: 'ENOENT', listing: [] });
  });

  it("cannot see a concurrent run's files", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const wroteSecret = new Promise<void>((resolve) => (written = resolve));
    const victim = runHostile(
      `${PRELUDE}
      fs.writeFileSync('/work/secret.txt', 'hidden test input');
      report({ written: true });
      process.stdin.resume();
      process.stdin.on('end', () => report({ stillThere: fs.readFileSync('/work/secret.txt', 'utf8') }));
    `,
      { slot: 0, holdStdinUntil: held, onLine: (line) => line.includes('written') && written() },
    );
    await wroteSecret;
    const attacker = await runHostile(
      `${PRELUDE}
      const pids = fs.readdirSync('/proc').filter((entry) => /^\\d+$/.test(entry));
      report({
        listing: fs.readdirSync('/work'),
        direct: attempt(() => fs.readFileSync('/work/secret.txt', 'utf8')),
        throughProc: pids.map((pid) => attempt(() => fs.readFileSync('/proc/' + pid + '/root/work/secret.txt', 'utf8'))),
      });
    `,
      { slot: 1 },
    );
    release();
    expect(attacker.report).toEqual({ listing: [], direct: 'ENOENT', throughProc: ['ENOENT', 'ENOENT'] });
    expect((await victim).report).toEqual({ stillThere: 'hidden test input' });
  });
});

describe('processes: nothing to signal, bounded in number, memory and CPU', () => {
  it('cannot signal or trace the worker, and signalling its own init does nothing', async () => {
    const run = await runHostile(`${PRELUDE}
      report({
        killWorker: attempt(() => process.kill(${process.pid}, 'SIGKILL')),
        killParent: attempt(() => process.kill(${process.ppid}, 'SIGKILL')),
        killInit: attempt(() => process.kill(1, 'SIGKILL')),
        initMemory: attempt(() => fs.readFileSync('/proc/1/mem')),
        stillRunning: true,
      });
    `);
    expect(run.exitCode).toBe(0);
    expect(run.report).toEqual({
      killWorker: 'ESRCH',
      killParent: 'ESRCH',
      killInit: true, // accepted, but a pid namespace's init ignores signals from inside it
      initMemory: 'EIO',
      stillRunning: true,
    });
  });

  // Which limit bites first depends on how fast the children start: each child's threads count
  // against the task limit (EAGAIN), its three pipes against the file limit (EMFILE); under CPU
  // load the pipes run out first. Either way the bomb stops well short of the task limit.
  it('stops a child_process fork bomb at a limit (EAGAIN at the task limit, or EMFILE at the file limit)', async () => {
    const run = await runHostile(`${PRELUDE}
      const cp = require('child_process');
      const children = [];
      let error = null;
      for (let i = 0; i < 500 && error === null; i++) {
        try {
          const child = cp.spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)']);
          child.on('error', (e) => { error = error || e.code; });
          children.push(child);
        } catch (e) { error = e.code; }
      }
      // Exits with its children still running: the pid namespace's teardown must take them too.
      setTimeout(() => { report({ error, started: children.filter((c) => c.pid !== undefined).length }); process.exit(0); }, 500);
    `);
    expect(['EAGAIN', 'EMFILE']).toContain(run.report.error);
    expect(run.report.started).toBeLessThan(OS_SANDBOX_DEFAULTS.maxProcesses);
  });

  it('stops a worker_threads bomb: the address-space limit kills the process', async () => {
    const run = await runHostile(`${PRELUDE}
      const { Worker } = require('worker_threads');
      const workers = [];
      for (let i = 0; i < 500; i++) workers.push(new Worker('setTimeout(() => {}, 20000)', { eval: true }));
      report({ survived: workers.length });
    `);
    expect(run.report).toBeUndefined();
    expect(run.exitCode).toBe(EXIT_BY_SIGNAL.SIGTRAP);
    expect(run.stderr).toContain('Failed to reserve virtual memory');
  });

  it('stops a memory bomb at the memory limit', async () => {
    const sandbox = await osSandbox();
    const run = await runHostile(
      `${PRELUDE}
      const hoard = [];
      let error = null;
      try { for (let i = 0; i < 100; i++) hoard.push(Buffer.alloc(32 * 1024 * 1024, 1)); } catch (e) { error = e.message; }
      report({ allocatedMb: hoard.length * 32, error });
    `,
      { memoryMb: JUDGE_CONFIG_LIMITS.minMemoryMb },
    );
    if (sandbox.report.cgroup === 'none') {
      // Without a memory cgroup, RLIMIT_DATA refuses the allocation instead.
      expect(run.report.error).toBe('Array buffer allocation failed');
    } else {
      // The cgroup's OOM killer ends the whole process tree.
      expect(run.oomKilled).toBe(true);
      expect(run.exitCode).toBe(EXIT_BY_SIGNAL.SIGKILL);
      expect(run.report).toBeUndefined();
    }
  });

  it('stops a CPU loop at the CPU-seconds limit even with no watchdog around it (SIGXCPU)', async () => {
    const run = await runHostile(`${PRELUDE} report({ started: true }); for (;;) {}`, { timeoutMs: 1000 });
    expect(run.report).toEqual({ started: true });
    expect(run.exitCode).toBe(EXIT_BY_SIGNAL.SIGXCPU);
  });
});

describe('the harness channel: results cannot be forged or flooded', () => {
  const request = { modules: [], entry: 'a.js', exportName: 'f', args: [], timeoutMs: 2000, memoryMb: 64 };

  it('counts a result line without the run nonce as a crash', async () => {
    const result = await runScriptInSandbox(
      request,
      `process.stdout.write(JSON.stringify({ type: 'ready' }) + '\\n');
       const payload = JSON.stringify({ status: 'returned', value: ['n', 5] });
       process.stdout.write(JSON.stringify({ type: 'result', nonce: '00000000000000000000000000000000', payload }) + '\\n');`,
    );
    expect(result).toMatchObject({
      status: 'crashed',
      reason: 'reported a result that is not part of the sandbox protocol',
      isolation: 'bwrap',
    });
  });

  it('kills a process that floods its output', async () => {
    const result = await runScriptInSandbox(
      request,
      `process.stdout.write(JSON.stringify({ type: 'ready' }) + '\\n');
       const chunk = 'x'.repeat(1 << 20);
       (function flood() { process.stdout.write(chunk, flood); })();`,
    );
    expect(result).toMatchObject({
      status: 'crashed',
      reason: `wrote more than ${SANDBOX_LIMITS.maxStdoutBytes} bytes of output`,
    });
  });

  it('cannot reach the parent through its descriptors or the harness file', async () => {
    const run = await runHostile(`${PRELUDE}
      report({
        parentDescriptors: attempt(() => fs.readdirSync('/proc/${process.pid}/fd')),
        harness: attempt(() => fs.writeFileSync(${JSON.stringify(SANDBOX_SCRIPT_PATH)}, 'tampered')),
        harnessMode: (fs.statSync(${JSON.stringify(SANDBOX_SCRIPT_PATH)}).mode & 0o777).toString(8),
      });
    `);
    expect(run.report).toEqual({ parentDescriptors: 'ENOENT', harness: 'EROFS', harnessMode: '444' });
  });
});

describe('the inner layer: import() no longer reaches the host realm', () => {
  it('rejects import() with an error of the submission realm, through runInSandbox directly', async () => {
    const result = await runInSandbox({
      modules: [
        {
          path: 'escape.js',
          kind: 'js',
          source: `exports.f = async () => {
            const error = await import('node:fs').then(() => null, (e) => e);
            let process = 'unreachable';
            try { process = error.constructor.constructor('return process')(); } catch (e) { process = e.name; }
            return {
              sameRealm: error instanceof TypeError && Object.getPrototypeOf(Object.getPrototypeOf(error)) === Error.prototype,
              chainEndsHere: Object.getPrototypeOf(Error.prototype) === Object.prototype,
              message: error.message,
              process: typeof process === 'string' ? process : 'REACHED',
            };
          };`,
        },
      ],
      entry: 'escape.js',
      exportName: 'f',
      args: [],
      timeoutMs: 2000,
      memoryMb: 64,
    });
    expect(result).toMatchObject({ status: 'returned', isolation: 'bwrap' });
    expect(result.status === 'returned' && result.value).toEqual([
      'o',
      [
        ['sameRealm', ['b', true]],
        ['chainEndsHere', ['b', true]],
        ['message', ['s', 'import() is not available in the sandbox: use require() of relative paths']],
        ['process', ['s', 'EvalError']],
      ],
    ]);
  });
});
