/**
 * The wall proves itself at start: a probe inside must see no network but loopback, an
 * unprivileged uid, a seccomp filter, refused sockets and a minimal root.
 */
import { SandboxUnavailableError } from '../errors';
import { type SandboxLauncher, defaultLimits } from './sandbox-contract';

/** Runs a probe inside the sandbox and checks the walls it must see. */
export async function selfCheck(launcher: SandboxLauncher): Promise<void> {
  const probe = `
    const fs = require('fs');
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const interfaces = fs.readFileSync('/proc/self/net/dev', 'utf8').split('\\n').slice(2)
      .map((line) => line.split(':')[0].trim()).filter(Boolean);
    let socket = 'allowed';
    try { require('net').createServer().listen(0, '127.0.0.1').on('error', (e) => { socket = e.code; }); } catch (e) { socket = e.code; }
    setTimeout(() => {
      const report = { uid: process.getuid(), interfaces, root: fs.readdirSync('/').sort(),
        seccomp: /^Seccomp:\\s+(\\d)/m.exec(status)[1], socket };
      process.stdout.write(JSON.stringify(report) + '\\n');
    }, 20);`;
  const launched = await launcher.launch({
    scriptSource: probe,
    hostScriptPath: '',
    nodeFlags: () => [],
    limits: { ...defaultLimits(64), cpuSeconds: 5 },
    slot: 0,
  });
  const { child } = launched;
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const exit = await new Promise<number | string | null>((resolve) => {
    child.on('error', (error) => resolve(error.message));
    child.on('close', (code, signal) => resolve(code ?? signal));
  });
  clearTimeout(timer);
  await launched.finish();
  const why = (text: string) =>
    new SandboxUnavailableError(
      `the bwrap sandbox does not work here: ${text.replace(/\s+/g, ' ').trim().slice(0, 300)}`,
    );
  if (exit !== 0) throw why(`probe exited with ${exit}: ${stderr || stdout}`);
  let report: { uid: number; interfaces: string[]; root: string[]; seccomp: string; socket: string };
  try {
    report = JSON.parse(stdout);
  } catch {
    throw why(`probe printed ${stdout}`);
  }
  if (report.uid === 0) throw why('the probe ran as root');
  if (report.interfaces.some((name) => name !== 'lo'))
    throw why(`network interfaces visible: ${report.interfaces.join(', ')}`);
  if (report.seccomp !== '2') throw why('no seccomp filter on the probe');
  if (report.socket !== 'EPERM') throw why(`an AF_INET socket was not refused (${report.socket})`);
  const unexpected = report.root.filter(
    (entry) => !['dev', 'lib', 'lib64', 'proc', 'sandbox', 'usr', 'work'].includes(entry),
  );
  if (unexpected.length > 0) throw why(`unexpected entries in the sandbox root: ${unexpected.join(', ')}`);
}
