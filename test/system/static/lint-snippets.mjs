// Lints many snippets in one eslint process (loading eslint and its config once, not per case):
// reads [{ filePath, code, typed }] as JSON on stdin, prints [{ filePath, messages }] per snippet.
// Untyped snippets skip the type-aware rules, whose TypeScript program costs ~10 s a build.
import { ESLint } from 'eslint';

const cwd = process.argv[2];
const snippets = JSON.parse(
  await new Promise((resolve) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
  }),
);
const typed = new ESLint({ cwd });
const untyped = new ESLint({
  cwd,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-misused-promises': 'off',
    },
  },
});
const out = [];
for (const { filePath, code, typed: isTyped } of snippets) {
  const [result] = await (isTyped ? typed : untyped).lintText(code, { filePath });
  out.push({ filePath, messages: result.messages });
}
process.stdout.write(JSON.stringify(out));
