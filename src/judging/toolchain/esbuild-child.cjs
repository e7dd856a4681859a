'use strict';
/**
 * One toolchain job in a process of its own (see run-esbuild.ts): waits for one request on the IPC
 * channel, transforms each file (or bundles a program from its entry) with esbuild's async API (its own esbuild service, a child of this
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
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { builtinModules } = require('node:module');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const posix = require('node:path').posix;

/** The submission's files live in this esbuild namespace: the file system is never read. */
const NAMESPACE = 'submission';

function message(entry) {
  const location = entry.location;
  return location
    ? {
        text: entry.text,
        file: location.file.replace(`${NAMESPACE}:`, ''),
        line: location.line,
        column: location.column,
      }
    : { text: entry.text };
}

const LOADERS = {
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.json': 'json',
};
const PROBED = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'];
const BUILTINS = new Set(builtinModules);
const ONLY_OWN =
  "a program imports only Node's built-in modules and the submission's own files (by relative paths)";

/** `./lib/add` from `main.ts`: the submitted file it names (as Node and TypeScript look), or undefined. */
function resolveAmong(files, importer, spec) {
  const base = posix.normalize(posix.join(posix.dirname(importer), spec));
  const candidates = [
    base,
    ...PROBED.map((ext) => base + ext),
    ...PROBED.map((ext) => `${base}/index${ext}`),
  ];
  // TypeScript's ESM style names the output: `./add.js` for add.ts.
  const js = /\.(m|c)?js$/.exec(base);
  if (js)
    candidates.push(
      base.slice(0, -js[0].length) + (js[1] ? `.${js[1]}ts` : '.ts'),
      `${base.slice(0, -js[0].length)}.tsx`,
    );
  return candidates.find((candidate) => files.has(candidate));
}

/** Resolves every import among the submitted files only (issue 40): anything else is an error. */
function submissionOnly(files) {
  return {
    name: 'submission-only',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return { path: args.path, namespace: NAMESPACE };
        const spec = args.path;
        if (spec.startsWith('node:') || BUILTINS.has(spec)) return { path: spec, external: true };
        if (spec.startsWith('/') || /^[A-Za-z]:[\\/]/.test(spec))
          return { errors: [{ text: `cannot import the absolute path "${spec}": ${ONLY_OWN}` }] };
        if (spec === '.' || spec === '..' || spec.startsWith('./') || spec.startsWith('../')) {
          const base = posix.normalize(posix.join(posix.dirname(args.importer), spec));
          if (base === '..' || base.startsWith('../'))
            return { errors: [{ text: `cannot import "${spec}": it leaves the submission; ${ONLY_OWN}` }] };
          const found = resolveAmong(files, args.importer, spec);
          if (found === undefined)
            return {
              errors: [{ text: `cannot import "${spec}": no such file in the submission; ${ONLY_OWN}` }],
            };
          return { path: found, namespace: NAMESPACE };
        }
        return {
          errors: [
            { text: `cannot import "${spec}": packages (node_modules) are not available; ${ONLY_OWN}` },
          ],
        };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: files.get(args.path),
        loader: LOADERS[posix.extname(args.path).toLowerCase()] || 'js',
      }));
    },
  };
}

/** One result: the bundle (CommonJS for Node) or the errors. */
async function bundle(request) {
  const files = new Map(request.files.map((file) => [file.path, file.source]));
  try {
    const result = await esbuild.build({
      entryPoints: [request.entry],
      bundle: true,
      write: false,
      platform: 'node',
      format: 'cjs',
      target: 'node18',
      outfile: 'main.js',
      logLevel: 'silent',
      plugins: [submissionOnly(files)],
    });
    return {
      results: [{ ok: true, code: result.outputFiles[0].text, warnings: result.warnings.map(message) }],
    };
  } catch (error) {
    const errors = error && error.errors;
    if (!Array.isArray(errors) || errors.length === 0) {
      return {
        crash: `${error instanceof Error ? error.message : String(error)} (bundling ${request.entry})`,
      };
    }
    return { results: [{ ok: false, errors: errors.map(message) }] };
  }
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
  (request.bundle ? bundle(request.bundle) : transformAll(request.files)).then(
    (answer) => process.send(answer, () => process.exit(0)),
    (error) => process.send({ crash: String(error && error.message) }, () => process.exit(0)),
  );
});
