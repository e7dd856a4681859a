/**
 * The take-part form as the API's body (issue 40): code pasted beside uploaded files is a file of
 * the program, never dropped without a word. With files, the API reads only the files, so pasted
 * code with no path would vanish and the entry with it.
 */
import { browserSubmission } from '../../../../../src/api/pages/accounts/routes';
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
