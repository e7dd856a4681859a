/**
 * Which language a submission is written in, and which file is its entry (pure; unit-tested).
 * The entry: `main.<ext>` or `Main.java` (shallowest first), else the only code file, else the
 * only file. Its language: the file's `language`, else its extension. A submission without files:
 * the first fenced block of `content` and its info string (```python).
 */
import path from 'node:path';
import { normalizeSubmissionPath } from '../submission-paths';
import type { SubmissionForJudging } from '../types';
import { LANGUAGES, type LanguageId, languageByExtension, languageByName } from './languages';

/** Files of one program at most (DESIGN "Multi-file programs"). */
export const MAX_PROGRAM_FILES = 64;

/**
 * `program`: every submitted file at its normalized path, the entry among them (given the
 * language's extension when it had another, so that its compiler takes it). `entry`: the entry
 * as submitted (`content` for a program in the body).
 */
export type Detection =
  | {
      kind: 'detected';
      language: LanguageId;
      entry: string;
      source: string;
      program: { entry: string; files: { path: string; content: string }[] };
    }
  | { kind: 'undetectable'; reason: string };

/** The program's files at normalized paths, or why they cannot be one program. */
function programFiles(
  files: readonly { path: string; content: string }[],
): { kind: 'ok'; files: { path: string; content: string }[] } | { kind: 'bad'; reason: string } {
  if (files.length > MAX_PROGRAM_FILES)
    return { kind: 'bad', reason: `a program has at most ${MAX_PROGRAM_FILES} files (${files.length} sent)` };
  const out: { path: string; content: string }[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const normalized = normalizeSubmissionPath(file.path);
    if (normalized === null)
      return {
        kind: 'bad',
        reason: `the file path "${file.path.slice(0, 80)}" leaves the submission's root`,
      };
    if (seen.has(normalized)) return { kind: 'bad', reason: `the file path "${normalized}" appears twice` };
    seen.add(normalized);
    out.push({ path: normalized, content: file.content });
  }
  for (const file of out) {
    const holder = out.find((other) => file.path.startsWith(`${other.path}/`));
    if (holder !== undefined)
      return { kind: 'bad', reason: `"${file.path}" is inside "${holder.path}", which is a file` };
  }
  return { kind: 'ok', files: out };
}

const ENTRY_NAME = /^(main\.[a-z+]+|Main\.java)$/;

function baseName(filePath: string): string {
  return filePath.slice(filePath.replace(/\\/g, '/').lastIndexOf('/') + 1);
}

function depth(filePath: string): number {
  return filePath.replace(/\\/g, '/').split('/').filter(Boolean).length;
}

/** The first fenced block: its info string and body (linear: one forward scan). */
export function firstFencedBlock(text: string): { info: string; body: string } | undefined {
  const open = text.indexOf('```');
  if (open < 0) return undefined;
  const lineEnd = text.indexOf('\n', open + 3);
  if (lineEnd < 0) return undefined;
  const close = text.indexOf('```', lineEnd + 1);
  if (close < 0) return undefined;
  return {
    info:
      text
        .slice(open + 3, lineEnd)
        .trim()
        .split(/\s+/)[0] ?? '',
    body: text.slice(lineEnd + 1, close),
  };
}

/** `content` that is exactly one fenced block (and blank lines around it): the block's body. */
export function unwrapSingleFence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('```') || !trimmed.endsWith('```') || trimmed.length < 7) return text;
  const block = firstFencedBlock(trimmed);
  if (block === undefined) return text;
  // The block must close at the very end (one block, nothing after it).
  const closeAt = trimmed.indexOf('```', trimmed.indexOf('\n') + 1);
  return closeAt === trimmed.length - 3 ? block.body : text;
}

/**
 * DESIGN "Submitting code the way people do": a file's language is its own `language`, then the
 * body's, then its extension, then a fence in `content`; the entry is `main.<ext>` or
 * `Main.java` at any depth (the shallowest first), else the only code file (else the only
 * file). Without files, `content` is the entry program in the body's language (one fenced block
 * unwrapped), or in the language of its first fenced block.
 */
export function detectProgram(submission: SubmissionForJudging): Detection {
  const files = submission.files;
  const named = submission.language ? submission.language.trim() : '';
  const bodyLanguage = named === '' ? undefined : languageByName(named);
  if (named !== '' && bodyLanguage === undefined) {
    return { kind: 'undetectable', reason: `unknown language "${named.slice(0, 40)}"` };
  }
  if (files.length > 0) {
    const ownLanguage = (file: (typeof files)[number]) =>
      file.language === undefined ? undefined : languageByName(file.language);
    const entries = files
      .filter((file) => ENTRY_NAME.test(baseName(file.path)) && languageByExtension(file.path) !== undefined)
      .sort((a, b) => depth(a.path) - depth(b.path));
    const code = files.filter(
      (file) => languageByExtension(file.path) !== undefined || ownLanguage(file) !== undefined,
    );
    const entry = entries[0] ?? (code.length === 1 ? code[0] : files.length === 1 ? files[0] : undefined);
    if (entry === undefined) {
      return {
        kind: 'undetectable',
        reason:
          code.length > 1
            ? `no entry file: name it main.<ext> (or Main.java) among ${code.length} code files`
            : 'no code file found (name the entry main.<ext> or Main.java, or choose its language)',
      };
    }
    const fence = firstFencedBlock(submission.content);
    const language =
      ownLanguage(entry) ??
      bodyLanguage ??
      languageByExtension(entry.path) ??
      (fence && fence.info !== '' ? languageByName(fence.info) : undefined);
    if (language === undefined) {
      return {
        kind: 'undetectable',
        reason: `cannot tell the language of ${entry.path}${entry.language ? ` ("${entry.language}")` : ''}: choose its language or name it by its extension`,
      };
    }
    const program = programFiles(files);
    if (program.kind === 'bad') return { kind: 'undetectable', reason: program.reason };
    const entryPath = normalizeSubmissionPath(entry.path)!;
    const spec = LANGUAGES[language];
    // An entry named otherwise (`solve` chosen as Python) gets the language's extension.
    const named = spec.extensions.includes(path.posix.extname(entryPath).toLowerCase())
      ? entryPath
      : language === 'java'
        ? path.posix.join(path.posix.dirname(entryPath), 'Main.java')
        : `${entryPath}${spec.extensions[0]}`;
    if (named !== entryPath && program.files.some((file) => file.path === named))
      return {
        kind: 'undetectable',
        reason: `the entry ${entryPath} would be ${named}, which is another file`,
      };
    const programFilesNamed = program.files.map((file) =>
      file.path === entryPath ? { path: named, content: file.content } : file,
    );
    return {
      kind: 'detected',
      language,
      entry: entry.path,
      source: entry.content,
      program: { entry: named, files: programFilesNamed },
    };
  }
  if (bodyLanguage !== undefined) {
    const source = unwrapSingleFence(submission.content);
    return {
      kind: 'detected',
      language: bodyLanguage,
      entry: 'content',
      source,
      program: contentProgram(bodyLanguage, source),
    };
  }
  const block = firstFencedBlock(submission.content);
  if (block === undefined) {
    return {
      kind: 'undetectable',
      reason: 'no language: choose one (the language field) or put the code in a fenced block (```python)',
    };
  }
  const language = block.info === '' ? undefined : languageByName(block.info);
  if (language === undefined) {
    return {
      kind: 'undetectable',
      reason:
        block.info === ''
          ? 'the fenced code block has no language (```python, ```cpp, ...)'
          : `unknown language "${block.info.slice(0, 40)}" in the fenced code block`,
    };
  }
  return {
    kind: 'detected',
    language,
    entry: 'content',
    source: block.body,
    program: contentProgram(language, block.body),
  };
}

/** A program in the body: one file, the language's usual entry. */
function contentProgram(language: LanguageId, source: string) {
  const entry = LANGUAGES[language].entryFile;
  return { entry, files: [{ path: entry, content: source }] };
}
