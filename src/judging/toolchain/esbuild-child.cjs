'use strict';
/**
 * One toolchain job in a process of its own (see run-esbuild.ts): waits for one request on the IPC
 * channel, transforms each file with esbuild's async API (its own esbuild service, a child of this
 * process), answers once and exits. A file esbuild rejects is that file's errors; anything else
 * (esbuild's service died: a stack overflow, a kill) is a crash, answered as such, after which
 * this process exits with its service: it is never used again. The parent kills the whole
 * process group at its deadline; should the parent die first, the channel closes and so does
 * this process (and with its stdin, esbuild's service).
 *
 *   node esbuild-child.cjs <path of esbuild's main module>
 */
// Executed by plain `node`, so CommonJS require is the right import here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const esbuild = require(process.argv[2]);

function message(entry) {
  const location = entry.location;
  return location
    ? { text: entry.text, file: location.file, line: location.line, column: location.column }
    : { text: entry.text };
}

/** The first lines of esbuild's stderr that say why it died are read by the parent. */
async function transformAll(files) {
  const results = [];
  for (const file of files) {
    try {
      const { code, warnings } = await esbuild.transform(file.source, file.options);
      results.push({ ok: true, code, warnings: warnings.map(message) });
    } catch (error) {
      const errors = error && error.errors;
      if (!Array.isArray(errors) || errors.length === 0) {
        return { crash: `${error instanceof Error ? error.message : String(error)} (on ${file.path})` };
      }
      results.push({ ok: false, errors: errors.map(message) });
    }
  }
  return { results };
}

process.on('disconnect', () => process.exit(0));
process.once('message', (request) => {
  transformAll(request.files).then(
    (answer) => process.send(answer, () => process.exit(0)),
    (error) => process.send({ crash: String(error && error.message) }, () => process.exit(0)),
  );
});
