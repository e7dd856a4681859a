/**
 * Closing the API's Temporal client while one of its calls waits to retry (src/temporal-client/
 * client.ts). The SDK schedules each gRPC retry with `setTimeout` and `Connection.close()` does
 * not clear it: a retry firing after the close threw "Channel has been shut down" inside the timer,
 * an uncaught exception that jest pinned on whichever test was running (seen on CI). The server
 * here is a real gRPC server on loopback that answers the connection check and then refuses every
 * call with UNAVAILABLE, the code the SDK retries.
 */
import {
  Server,
  ServerCredentials,
  status,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceError,
} from '@grpc/grpc-js';
import type { Config } from '../../../src/config';
import { lazyTemporalClient } from '../../../src/temporal-client/client';

const SERVICE = '/temporal.api.workflowservice.v1.WorkflowService/';
const raw = (b: Buffer) => b;
type Unary = ServerUnaryCall<Buffer, Buffer>;
type Reply = sendUnaryData<Buffer>;

let server: Server;
let address: string;
let refusedCalls = 0;

beforeAll(async () => {
  server = new Server();
  // An empty message is a valid (all-default) GetSystemInfoResponse: the connection check passes.
  server.register(
    SERVICE + 'GetSystemInfo',
    (_call: Unary, cb: Reply) => cb(null, Buffer.alloc(0)),
    raw,
    raw,
    'unary',
  );
  server.register(
    SERVICE + 'DescribeNamespace',
    (_call: Unary, cb: Reply) => {
      refusedCalls += 1;
      cb({ code: status.UNAVAILABLE, details: 'going down' } as ServiceError);
    },
    raw,
    raw,
    'unary',
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  address = `127.0.0.1:${port}`;
});
afterAll(() => server.forceShutdown());

test('a call waiting to retry when the client closes ends with its error, and nothing is thrown from a timer', async () => {
  const escaped: unknown[] = [];
  const onUncaught = (err: unknown) => escaped.push(err);
  process.on('uncaughtException', onUncaught);
  try {
    const temporal = lazyTemporalClient({
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: 'default',
    } as Config);
    const client = await temporal.get();
    const call = client.workflowService.describeNamespace({ namespace: 'default' }).then(
      () => 'answered',
      (err: Error) => err,
    );
    // The first attempt was refused: a retry is now scheduled on a timer.
    await waitFor(() => refusedCalls >= 1);
    await temporal.close();
    const refusedAtClose = refusedCalls;

    // Before the fix the call never settled: its retry threw inside the timer instead.
    const outcome = await Promise.race([call, sleep(10_000).then(() => 'never settled')]);
    expect(outcome).toBeInstanceOf(Error);
    // Past the longest retry the SDK could have had scheduled (its first delays are ~100–200 ms):
    // no attempt after the close, and no exception escaped from a timer.
    await sleep(1_500);
    expect(refusedCalls).toBe(refusedAtClose);
    expect(escaped).toEqual([]);
  } finally {
    process.off('uncaughtException', onUncaught);
  }
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(5);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
