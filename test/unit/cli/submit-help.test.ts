/**
 * `npm run cli -- submit --help` as a person reads it (issue 40): what each way of sending does
 * (--dir, --file, --message, --language, --wait and its timeout), that every file is part of one
 * program and which file is the entry, and that a compile error is given back.
 */
import { runCli } from '../../../src/cli/framework';
import { loadCommands } from '../../../src/cli/index';

async function help(argv: string[]): Promise<string> {
  let out = '';
  const code = await runCli(argv, await loadCommands(), {
    env: { API_BASE_URL: 'http://127.0.0.1:3999' } as NodeJS.ProcessEnv,
    out: (t) => (out += `${t}\n`),
    err: (t) => (out += `${t}\n`),
  });
  expect(code).toBe(0);
  return out;
}

test('submit --help says what each option sends, which file is the entry, and that a compile error is given back', async () => {
  const text = await help(['submit', '--help']);
  // The first line: a program's files or a text answer, not "a program" only.
  expect(text.split('\n')[0]).toMatch(/^Submit .*program.*--dir.*--file.*text answer.*--message/);
  // One line per option, with its short form where it has one.
  expect(text).toMatch(/^ {2}-d, --dir <folder> +.*at its path inside it/m);
  expect(text).toMatch(/^ {2}-f, --file <path> +.*repeat/m);
  expect(text).toMatch(/^ {2}-m, --message <text> +.*judges text/m);
  expect(text).toMatch(/^ {2}--language <id> +/m);
  expect(text).toMatch(/^ {2}--wait +.*--timeout.*300/m);
  // The program: every file is part of it; the entry; a challenge may name its own (prose wraps).
  const prose = text.replace(/\s+/g, ' ');
  expect(prose).toMatch(/every file is part of one program/i);
  expect(prose).toMatch(/JavaScript and TypeScript.*bundled from the entry/);
  expect(prose).toMatch(/entry.*main\.<ext> or Main\.java.*shallowest.*else the only code file/);
  expect(prose).toMatch(/challenge names its entry/);
  expect(prose).toMatch(/compile error counts against no submission limit/i);
  // The command list shows the summary's first line alone, never the prose above.
  const listed = (await help(['help'])).split('\n').find((line) => /^ {2}submit /.test(line));
  expect(listed).toBeDefined();
  expect(text).toContain(listed!.replace(/^ {2}submit +/, '').trim());
  expect(listed).not.toMatch(/every file is part of one program|bundled from the entry/i);
});
