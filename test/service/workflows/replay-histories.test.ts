/**
 * Changed workflow code must still replay the runs that older code started: a worker picking up a
 * running workflow replays its history with the code it has now, and a mismatch fails the run
 * (non-determinism). Every history in test/fixtures/workflow-histories (recorded from real runs by
 * temporal/capture-histories.ts, named after the commit that produced them) is replayed here against
 * the current workflows bundle (the registry, workflows/index.ts). When this fails after a workflow change, the change needs
 * `patched()` (docs/decisions/platform.md, "Changing workflows"), not new fixtures.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';
import { Runtime, Worker } from '@temporalio/worker';
import { workflowBundlePath } from '../../helpers/workflow-env';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'workflow-histories');
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .sort();

interface Fixture {
  workflowId: string;
  workflowType: string;
  capturedFrom: string;
  history: unknown;
}

const load = (file: string): Fixture => JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8'));

/**
 * Proto JSON (what `temporal workflow show -o json` writes) → History. The SDK's historyFromJSON
 * does the same, but here npm installs two copies of protobufjs 8 (one under @temporalio/common,
 * one under @temporalio/proto, beside grpc's protobufjs 7 at the root) and the JSON parser of one
 * refuses the other's types; so the parser is taken from the copy that built the types.
 */
const protoDir = path.dirname(require.resolve('@temporalio/proto/package.json'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { fromJson } = require(require.resolve('protobufjs/ext/protojson', { paths: [protoDir] })) as {
  fromJson: (
    type: unknown,
    json: unknown,
    options: { ignoreUnknownFields: boolean },
  ) => proto.temporal.api.history.v1.IHistory;
};
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType(
  'temporal.api.history.v1.History',
);
const historyFromJSON = (json: unknown) => fromJson(historyType, json, { ignoreUnknownFields: true });

let workflowBundle: { codePath: string };
beforeAll(async () => {
  // Replay workers log every replayed task at info; only problems matter here.
  try {
    Runtime.install({
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
    });
  } catch {
    // already installed in this jest worker
  }
  // The bundle of the current sources, built once per content and shared with the workflows' tests.
  workflowBundle = { codePath: await workflowBundlePath() };
}, 120_000);

test('fixtures cover every workflow type the worker registers', async () => {
  const exported = Object.entries(await import('../../../workflows'));
  const registered = exported
    .filter(([name, value]) => typeof value === 'function' && name.endsWith('Workflow'))
    .map(([name]) => name)
    .sort();
  const covered = [...new Set(files.map((f) => load(f).workflowType))].sort();
  expect(covered).toEqual(registered);
});

test.each(files)('%s replays without non-determinism against the current code', async (file) => {
  const fixture = load(file);
  const history = historyFromJSON(fixture.history);
  expect(history.events?.length ?? 0).toBeGreaterThan(2);
  await Worker.runReplayHistory({ workflowBundle, replayName: file }, history, fixture.workflowId);
});
