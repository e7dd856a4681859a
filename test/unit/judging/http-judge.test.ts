import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  GraderRejectedError,
  GraderUnavailableError,
  type JudgeConfigInput,
  type SubmissionForJudging,
  runJudge,
} from '../../../src/judging';

interface ReceivedRequest {
  method: string | undefined;
  url: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void;

const json = (
  response: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};

const routes: Record<string, Handler> = {
  '/ok': (_req, res) =>
    json(res, 200, {
      score: 87.456,
      feedback: 'Solid work.\nSecond line for details.',
      criteria: [
        { name: 'correctness', score: 90, weight: 3, feedback: 'one edge case missed' },
        { name: 'style', score: 40 },
        { name: 'hidden perf', score: 100, hidden: true, passed: true },
      ],
      extra_field: 'ignored',
    }),
  '/minimal': (_req, res) => json(res, 201, { score: 0 }),
  '/disqualify': (_req, res) =>
    json(res, 200, { score: 0, result_state: 'disqualified', feedback: 'plagiarism' }),
  '/500': (_req, res) => json(res, 500, { error: 'boom' }),
  '/503': (_req, res) => json(res, 503, { error: 'busy' }, { 'retry-after': '7' }),
  '/429': (_req, res) => json(res, 429, { error: 'slow down' }, { 'retry-after': '2' }),
  '/400': (_req, res) => json(res, 400, { error: 'bad request' }),
  '/404': (_req, res) => json(res, 404, { error: 'not found' }),
  '/redirect': (_req, res) => {
    res.writeHead(302, { location: '/ok' });
    res.end();
  },
  '/score-out-of-range': (_req, res) => json(res, 200, { score: 150 }),
  '/missing-score': (_req, res) => json(res, 200, { feedback: 'forgot the score' }),
  '/not-json': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('hello');
  },
  '/huge': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"score": 1, "feedback": "${'x'.repeat(2 * 1024 * 1024)}"}`);
  },
  '/slow': () => {
    // never answers
  },
};

describe('http judge against a loopback grader', () => {
  let server: http.Server;
  let baseUrl: string;
  const received: ReceivedRequest[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        received.push({
          method: request.method,
          url: request.url,
          headers: request.headers,
          body: JSON.parse(body),
        });
        const handler = routes[request.url ?? ''];
        if (handler) handler(request, response, body);
        else json(response, 404, {});
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const submission: SubmissionForJudging = {
    content: 'my answer',
    files: [{ path: 'a.ts', content: 'export const a = 1;', language: 'typescript' }],
  };
  const config = (route: string, extra: Partial<Extract<JudgeConfigInput, { kind: 'http' }>> = {}) => ({
    kind: 'http' as const,
    url: `${baseUrl}${route}`,
    // Generous: a loaded machine must not turn an answering grader into a timeout.
    timeout_ms: 30_000,
    ...extra,
  });

  it('POSTs the submission as JSON with the configured headers and maps the grade', async () => {
    const outcome = await runJudge(
      config('/ok', { headers: { Authorization: 'Bearer grader-token', 'X-Challenge': 'c1' } }),
      submission,
    );
    const request = received.find((r) => r.url === '/ok')!;
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers.authorization).toBe('Bearer grader-token');
    expect(request.headers['x-challenge']).toBe('c1');
    expect(request.body).toEqual({ submission: { content: 'my answer', files: submission.files } });

    expect(outcome).toMatchObject({
      score: 87.46,
      resultState: 'scored',
      summary: 'Solid work.',
      criteria: [
        {
          name: 'correctness',
          weight: 3,
          score: 90,
          passed: true,
          feedback: 'one edge case missed',
          hidden: false,
        },
        { name: 'style', weight: 1, score: 40, passed: false, feedback: '', hidden: false },
        { name: 'hidden perf', weight: 1, score: 100, passed: true, feedback: '', hidden: true },
      ],
      details: { grader_status: 200, grader_feedback: 'Solid work.\nSecond line for details.' },
    });
  });

  it('accepts a minimal body and any 2xx', async () => {
    const outcome = await runJudge(config('/minimal'), submission);
    expect(outcome).toMatchObject({
      score: 0,
      resultState: 'scored',
      criteria: [],
      summary: 'Graded 0 by the external grader',
    });
  });

  it('lets the grader disqualify', async () => {
    expect((await runJudge(config('/disqualify'), submission)).resultState).toBe('disqualified');
  });

  it.each([
    ['/500', 500, undefined],
    ['/503', 503, 7000],
    ['/429', 429, 2000],
  ])('treats %s as retryable GraderUnavailableError', async (route, status, retryAfterMs) => {
    const judging = runJudge(config(route), submission);
    await expect(judging).rejects.toBeInstanceOf(GraderUnavailableError);
    await expect(judging).rejects.toMatchObject({ retryable: true, status, retryAfterMs });
  });

  it.each(['/400', '/404', '/redirect'])('treats %s as non-retryable GraderRejectedError', async (route) => {
    const judging = runJudge(config(route), submission);
    await expect(judging).rejects.toBeInstanceOf(GraderRejectedError);
    await expect(judging).rejects.toMatchObject({ retryable: false });
  });

  it.each([
    ['/score-out-of-range', /grader response is invalid: score: Number must be less than or equal to 100/],
    ['/missing-score', /grader response is invalid: score: Required/],
    ['/not-json', /grader response is not JSON/],
    ['/huge', /grader response exceeds 1048576 bytes/],
  ])('rejects the invalid body of %s', async (route, message) => {
    const judging = runJudge(config(route), submission);
    await expect(judging).rejects.toBeInstanceOf(GraderRejectedError);
    await expect(judging).rejects.toThrow(message);
  });

  it('times out a grader that never answers (retryable)', async () => {
    // /slow never answers: the message names the judge's own limit, so the judge ended the wait.
    const judging = runJudge(config('/slow', { timeout_ms: 300 }), submission);
    await expect(judging).rejects.toBeInstanceOf(GraderUnavailableError);
    await expect(judging).rejects.toThrow('grader did not answer within 300 ms');
  });

  it('reports a refused connection as retryable', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const judging = runJudge(
      { kind: 'http', url: `http://127.0.0.1:${port}/`, timeout_ms: 1000 },
      submission,
    );
    await expect(judging).rejects.toBeInstanceOf(GraderUnavailableError);
    await expect(judging).rejects.toThrow(/grader unreachable: .*ECONNREFUSED/);
  });

  it('rejects with the abort reason when cancelled', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled');
    const judging = runJudge(config('/slow', { timeout_ms: 5000 }), submission, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(reason), 50);
    await expect(judging).rejects.toBe(reason);
  });
});
