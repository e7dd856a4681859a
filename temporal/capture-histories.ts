/**
 * Captures workflow histories from a Temporal server into test/fixtures/workflow-histories, for the
 * replay test (test/service/workflows/replay-histories.test.ts) that proves changed workflow code still
 * replays the histories of runs started by the code before it (docs/decisions/platform.md,
 * "Changing workflows").
 *
 *   TEMPORAL_ADDRESS=127.0.0.1:7245 npx tsx temporal/capture-histories.ts [label]
 *
 * CAPTURE_TYPES=submissionWorkflow,… limits it to the workflow types a change touched.
 *
 * Run it against a dev server on which the integration suites have just run (they exercise every
 * workflow type and path). For each workflow type it keeps one run (closed if any) per distinct sequence of
 * history event types (one per code path, longest first, at most MAX_PER_TYPE), and writes each as
 * `<type>-<label>-<n>.json` = {workflowId, workflowType, capturedFrom, history}. `label` (default:
 * the current git commit) names the code that produced them; fixtures of older code are kept, so
 * the test keeps checking that new code replays what old code recorded.
 */
import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import * as registry from '../workflows';

/** Every workflow type the worker registers: the registry's exports (workflows/index.ts). */
const WORKFLOW_TYPES = Object.entries(registry)
  .filter(([name, value]) => typeof value === 'function' && name.endsWith('Workflow'))
  .map(([name]) => name);
const MAX_PER_TYPE = Number(process.env.MAX_PER_TYPE ?? 4);
const SCAN_PER_TYPE = 300;
const OUT_DIR = path.join(__dirname, '..', 'test', 'fixtures', 'workflow-histories');

async function main(): Promise<void> {
  const label = process.argv[2] ?? execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  const address = process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7245';
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  // The CLI writes histories in the proto JSON form that historyFromJSON (and `temporal workflow
  // show`) read; the SDK's own historyToJSON trips over the client's and common's protobuf copies.
  const cli = execFileSync(path.join(__dirname, 'ensure-cli.sh'), { encoding: 'utf8' }).trim();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace });
  mkdirSync(OUT_DIR, { recursive: true });
  let written = 0;
  const only = process.env.CAPTURE_TYPES?.split(',').filter(Boolean);
  for (const type of WORKFLOW_TYPES.filter((t) => !only || only.includes(t))) {
    const candidates: { workflowId: string; runId: string; historyLength: number }[] = [];
    // Closed runs first; a type whose runs never close within a test run (the sweeper) falls back
    // to its open runs (replaying a partial history is valid: the replayer stops where it ends).
    for (const status of [`ExecutionStatus != 'Running'`, `ExecutionStatus = 'Running'`]) {
      for await (const wf of client.workflow.list({ query: `WorkflowType = '${type}' AND ${status}` })) {
        candidates.push({ workflowId: wf.workflowId, runId: wf.runId, historyLength: wf.historyLength });
        if (candidates.length >= SCAN_PER_TYPE) break;
      }
      if (candidates.length > 0) break;
    }
    candidates.sort((a, b) => b.historyLength - a.historyLength);
    const shapes = new Set<string>();
    let kept = 0;
    for (const c of candidates) {
      if (kept >= MAX_PER_TYPE) break;
      const history = await client.workflow.getHandle(c.workflowId, c.runId).fetchHistory();
      const shape = (history.events ?? []).map((e) => e.eventType).join(',');
      if (shapes.has(shape)) continue;
      shapes.add(shape);
      kept++;
      const file = path.join(OUT_DIR, `${type}-${label}-${kept}.json`);
      const json = execFileSync(
        cli,
        [
          'workflow',
          'show',
          '--address',
          address,
          '--namespace',
          namespace,
          '--workflow-id',
          c.workflowId,
          '--run-id',
          c.runId,
          '--output',
          'json',
        ],
        { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      );
      const body = {
        workflowId: c.workflowId,
        workflowType: type,
        capturedFrom: label,
        history: JSON.parse(json),
      };
      writeFileSync(file, `${JSON.stringify(body)}\n`);
      written++;
      console.log(
        `${path.relative(process.cwd(), file)}: ${history.events?.length ?? 0} events (${c.workflowId})`,
      );
    }
    if (kept === 0) console.warn(`no closed ${type} run found on ${address}`);
  }
  console.log(`${written} histories written to ${path.relative(process.cwd(), OUT_DIR)}`);
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
