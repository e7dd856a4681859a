/**
 * Which language a submission is written in, and which file is its entry (pure; unit-tested).
 * The entry: `main.<ext>` or `Main.java` (shallowest first), else the only code file, else the
 * only file. Its language: the file's `language`, else its extension. A submission without files:
 * the first fenced block of `content` and its info string (```python).
 */
import type { SubmissionForJudging } from '../types';
import { type LanguageId, languageByExtension, languageByName } from './languages';

export type Detection =
  | { kind: 'detected'; language: LanguageId; entry: string; source: string }
  | { kind: 'undetectable'; reason: string };

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

export function detectProgram(submission: SubmissionForJudging): Detection {
  const files = submission.files;
  if (files.length > 0) {
    const named = files
      .filter((file) => ENTRY_NAME.test(baseName(file.path)) && languageByExtension(file.path) !== undefined)
      .sort((a, b) => depth(a.path) - depth(b.path));
    const code = files.filter(
      (file) =>
        languageByExtension(file.path) !== undefined ||
        (file.language !== undefined && languageByName(file.language) !== undefined),
    );
    const entry = named[0] ?? (code.length === 1 ? code[0] : files.length === 1 ? files[0] : undefined);
    if (entry === undefined) {
      return {
        kind: 'undetectable',
        reason:
          code.length > 1
            ? `no entry file: name it main.<ext> (or Main.java) among ${code.length} code files`
            : 'no code file found (name the entry main.<ext> or Main.java)',
      };
    }
    const language =
      (entry.language === undefined ? undefined : languageByName(entry.language)) ??
      languageByExtension(entry.path);
    if (language === undefined) {
      return {
        kind: 'undetectable',
        reason: `cannot tell the language of ${entry.path}${entry.language ? ` ("${entry.language}")` : ''}`,
      };
    }
    return { kind: 'detected', language, entry: entry.path, source: entry.content };
  }
  const block = firstFencedBlock(submission.content);
  if (block === undefined) {
    return { kind: 'undetectable', reason: 'no files and no fenced code block in the content' };
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
  return { kind: 'detected', language, entry: 'content', source: block.body };
}
