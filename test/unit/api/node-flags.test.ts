import { readFileSync } from 'node:fs';
import path from 'node:path';
import { API_NODE_FLAGS } from '../../../src/api/node-flags';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

// Every way an API process starts names the flags of src/api/node-flags.ts (a start that drops them
// runs with V8's 16 MB nursery and the major collections it brought at load).
describe('the API processes start with API_NODE_FLAGS', () => {
  const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
  const flags = API_NODE_FLAGS.join(' ');

  it.each(['api', 'start:api'])('npm run %s', (name) => {
    expect(scripts[name]).toMatch(new RegExp(`^node ${flags} `));
  });

  it("npm start's scripts/run.sh", () => {
    const line = read('scripts/run.sh')
      .split('\n')
      .find((l) => l.startsWith('start api '));
    expect(line).toBe(`start api node ${flags} --import tsx src/api/server.ts`);
  });

  it("the image's default command (Dockerfile CMD)", () => {
    const cmd = read('Dockerfile').match(/^CMD (\[.*\])$/m);
    expect(cmd).not.toBeNull();
    expect(JSON.parse(cmd![1])).toEqual(['node', ...API_NODE_FLAGS, 'dist/src/api/server.js']);
  });

  it("docker-compose.yml's api service", () => {
    const compose = read('docker-compose.yml');
    const command = compose.match(/^ {2}api:\n(?:(?! {2}\S).*\n)*? {4}command: (\[.*\])$/m);
    expect(command).not.toBeNull();
    expect(JSON.parse(command![1].replace(/'/g, '"'))).toEqual([
      'node',
      ...API_NODE_FLAGS,
      'dist/src/api/server.js',
    ]);
  });
});
