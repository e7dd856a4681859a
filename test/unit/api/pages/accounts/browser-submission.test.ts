/**
 * The take-part form as the API's body (issue 40): code pasted beside uploaded files is a file of
 * the program, never dropped without a word. With files, the API reads only the files, so pasted
 * code with no path would vanish and the entry with it.
 */
import {
  browserSubmission,
  browserSubmissionWithLabels,
  describeFormIssues,
} from '../../../../../src/api/pages/accounts/routes';
import { createSubmissionBody } from '../../../../../src/api/schemas/submissions';
import type { ParsedForm } from '../../../../../src/api/form-body';

const PROGRAM = { languages: ['python', 'cpp'] };
const MAIN = 'from lib.adder import add\nprint(add(*map(int, input().split())))\n';
const uploaded = (path: string, content: string): ParsedForm => ({
  fields: { path_1: [path] },
  files: { file_1: [{ filename: path.slice(path.lastIndexOf('/') + 1), content }] },
});

test('pasted code with a path joins the uploaded files', () => {
  expect(
    browserSubmission(
      PROGRAM,
      { content: MAIN, paste_path: 'main.py' },
      uploaded('lib/adder.py', 'def add(a, b):\n    return a + b\n'),
    ),
  ).toEqual({
    content: '',
    files: [
      { path: 'main.py', content: MAIN },
      { path: 'lib/adder.py', content: 'def add(a, b):\n    return a + b\n' },
    ],
  });
});

test('pasted code without a path beside uploaded files is refused, saying which field to fill', () => {
  let refused: unknown;
  try {
    browserSubmission(
      PROGRAM,
      { content: MAIN, paste_path: '' },
      uploaded('lib/adder.py', 'def add(a, b): ...\n'),
    );
  } catch (e) {
    refused = e;
  }
  expect(refused).toMatchObject({
    code: 'VALIDATION_ERROR',
    message: expect.stringMatching(/pasted code.*files.*"Save the pasted code as"/),
  });
});

test('pasted code alone, and files alone, are sent as before', () => {
  expect(browserSubmission(PROGRAM, { content: MAIN, language: 'python' }, null)).toEqual({
    content: MAIN,
    language: 'python',
  });
  expect(browserSubmission(PROGRAM, { content: '  \n' }, uploaded('main.py', MAIN))).toEqual({
    content: '  \n',
    files: [{ path: 'main.py', content: MAIN }],
  });
});

describe('issue 41.9: the smaller items of the take-part form', () => {
  const TESTS_JUDGE = { languages: null, entry: 'src/solution.ts' };
  const solution = "export const reverse = (s: string) => [...s].reverse().join('');\n";

  test('an uploaded solution.ts keeps the folder of the challenge entry (a browser sends only the name)', () => {
    const chosen: ParsedForm = {
      fields: {},
      files: { file_1: [{ filename: 'solution.ts', content: solution }] },
    };
    expect(browserSubmission(TESTS_JUDGE, { content: '' }, chosen)).toEqual({
      content: '',
      files: [{ path: 'src/solution.ts', content: solution }],
    });
    // A path typed beside the file wins; another name stays as sent.
    expect(
      browserSubmission(TESTS_JUDGE, { content: '' }, uploaded('lib/util.ts', 'export {};\n')).files,
    ).toEqual([{ path: 'lib/util.ts', content: 'export {};\n' }]);
  });

  test('pasted code on "detect from the file name": the one language offered, else a clear error naming the fields', () => {
    expect(
      browserSubmission({ languages: ['python'] }, { content: 'print(1)\n', language: '' }, null),
    ).toEqual({
      content: 'print(1)\n',
      language: 'python',
    });
    expect(
      browserSubmission(PROGRAM, { content: 'print(1)\n', language: '', paste_path: 'main.py' }, null),
    ).toEqual({ content: '', files: [{ path: 'main.py', content: 'print(1)\n' }] });
    expect(() => browserSubmission(PROGRAM, { content: 'print(1)\n', language: '' }, null)).toThrow(
      /Language: "detect from the file name" needs a file name: choose the language of the pasted code, or name its file under "Save the pasted code as"/,
    );
  });

  test("the API schema's errors about a file name the form's label, not files.0.path", () => {
    const typed = browserSubmissionWithLabels(
      PROGRAM,
      { content: 'x', paste_path: 'main.py' },
      uploaded('../escape.py', 'print(2)\n'),
    );
    expect(typed.labels).toEqual(['Save the pasted code as', 'Path of file 1']);
    const parsed = createSubmissionBody.safeParse(typed.body);
    expect(parsed.success).toBe(false);
    const message = describeFormIssues(parsed.success ? [] : parsed.error.issues, typed.labels);
    expect(message).toMatch(/^Path of file 1: /);
    expect(message).not.toContain('files.');
  });
});
