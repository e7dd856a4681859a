/** Paths of submitted files (pure: the program judges, the tests judge and intake share it). */

/** `./src//a.ts`, `/src/a.ts`, `src\a.ts` → `src/a.ts`; null when the path is empty or leaves the root. */
export function normalizeSubmissionPath(rawPath: string): string | null {
  const segments: string[] = [];
  for (const segment of rawPath.replace(/\\/g, '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return null;
      segments.pop();
    } else {
      segments.push(segment);
    }
  }
  return segments.length === 0 ? null : segments.join('/');
}
