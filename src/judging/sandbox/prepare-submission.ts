import path from 'node:path';
import type { Loader } from 'esbuild';
import {
  type ToolchainFile,
  type ToolchainRunOptions,
  formatToolchainMessage,
  transformInChild,
} from '../toolchain/run-esbuild';
import type { SubmissionForJudging } from '../types';
import { firstFencedCode } from './fenced-code';
import { normalizeSubmissionPath } from '../submission-paths';

export { normalizeSubmissionPath };
import type { SandboxModule } from './run-in-sandbox';

const LOADERS: Readonly<Record<string, Loader>> = {
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
};
const RESOLVABLE_EXTENSIONS = [...Object.keys(LOADERS), '.json'];

export const PREPARE_LIMITS = {
  maxFiles: 500,
  maxTotalSourceChars: 2_000_000,
  maxCompileErrorsShown: 5,
} as const;

/** Name given to `content` when a submission carries no code files (see prepareSubmission). */
export const CONTENT_MODULE_PATH = 'main.ts';

export type PreparedSubmission =
  | { kind: 'ready'; entry: string; modules: SandboxModule[] }
  /** Nothing can be run: no code, entry missing, too large. */
  | { kind: 'unrunnable'; reason: string }
  | { kind: 'compile_error'; entry: string; message: string };

/** Code carried in `content`: the first fenced js/ts block when there is one, else the whole text. */
function codeFromContent(content: string): string {
  return firstFencedCode(content) ?? content;
}

/**
 * Collects the submission's JavaScript/TypeScript (and JSON) files, transpiles them to CommonJS
 * with esbuild (in a toolchain process of their own, before the sandbox: the sandbox may not
 * spawn esbuild's service; see toolchain/run-esbuild.ts) and picks the entry. A submission
 * without code files is judged on its `content` as `main.ts`. A toolchain that died on the
 * files twice is the submission's compile error, naming the failure; rejects only with the
 * abort reason.
 */
export async function prepareSubmission(
  submission: SubmissionForJudging,
  configuredEntry?: string,
  options: Pick<ToolchainRunOptions, 'signal'> = {},
): Promise<PreparedSubmission> {
  const files = submission.files ?? [];
  if (files.length > PREPARE_LIMITS.maxFiles) {
    return { kind: 'unrunnable', reason: `the submission has more than ${PREPARE_LIMITS.maxFiles} files` };
  }

  const sources: { path: string; extension: string; source: string }[] = [];
  const seen = new Set<string>();
  let totalChars = 0;
  for (const file of files) {
    const normalized = normalizeSubmissionPath(file.path);
    if (normalized === null) continue;
    const extension = path.posix.extname(normalized).toLowerCase();
    if (!RESOLVABLE_EXTENSIONS.includes(extension)) continue;
    if (seen.has(normalized))
      return { kind: 'unrunnable', reason: `the file path "${normalized}" appears twice` };
    seen.add(normalized);
    totalChars += file.content.length;
    sources.push({ path: normalized, extension, source: file.content });
  }
  if (!sources.some((source) => source.extension in LOADERS) && submission.content.trim() !== '') {
    sources.push({
      path: CONTENT_MODULE_PATH,
      extension: '.ts',
      source: codeFromContent(submission.content),
    });
    totalChars += submission.content.length;
  }
  if (totalChars > PREPARE_LIMITS.maxTotalSourceChars) {
    return {
      kind: 'unrunnable',
      reason: `the submission's code exceeds ${PREPARE_LIMITS.maxTotalSourceChars} characters`,
    };
  }

  const codeFiles = sources.filter((source) => source.extension in LOADERS);
  let entry: string | undefined;
  if (configuredEntry !== undefined) {
    const wanted = normalizeSubmissionPath(configuredEntry);
    entry = codeFiles.find((file) => file.path === wanted)?.path;
    if (entry === undefined) {
      return { kind: 'unrunnable', reason: `the entry file "${configuredEntry}" is not in the submission` };
    }
  } else {
    entry = codeFiles[0]?.path;
    if (entry === undefined) {
      return { kind: 'unrunnable', reason: 'the submission contains no JavaScript or TypeScript code' };
    }
  }

  const modules: SandboxModule[] = [];
  const errors: string[] = [];
  const toTransform: ToolchainFile[] = [];
  for (const file of sources) {
    const loader = LOADERS[file.extension];
    if (loader === undefined) continue;
    toTransform.push({
      path: file.path,
      source: file.source,
      options: {
        loader,
        format: 'cjs',
        target: 'node20',
        sourcefile: file.path,
        logLevel: 'silent',
        // import() would reach Node's real module loader; as require() it goes through the shim.
        supported: { 'dynamic-import': false },
      },
    });
  }
  const transformed = await transformInChild(toTransform, { signal: options.signal });
  if (transformed.kind === 'crashed') return { kind: 'compile_error', entry, message: transformed.reason };
  const results = new Map(toTransform.map((file, index) => [file.path, transformed.files[index]]));
  for (const file of sources) {
    const result = results.get(file.path);
    if (result === undefined) modules.push({ path: file.path, kind: 'json', source: file.source });
    else if (result.ok) modules.push({ path: file.path, kind: 'js', source: result.code });
    else errors.push(...result.errors.map((message) => formatToolchainMessage(message)));
  }
  if (errors.length > 0) {
    const shown = errors.slice(0, PREPARE_LIMITS.maxCompileErrorsShown);
    const more = errors.length > shown.length ? ` (+${errors.length - shown.length} more)` : '';
    return { kind: 'compile_error', entry, message: shown.join('; ') + more };
  }
  return { kind: 'ready', entry, modules };
}
