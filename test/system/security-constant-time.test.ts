/**
 * Secrets are compared in constant time. A static scan of src/** (TypeScript AST) finds every
 * equality comparison (===, !==, ==, !=, switch) whose compared value is named like a secret
 * (token, key, secret, signature, hash, digest, password, jwt, hmac, credential) and fails unless
 * it is in the commented allow-list below (comparisons that involve no secret). Comparisons with
 * null/undefined/'', numbers, booleans and `typeof` are presence or type checks and are not flagged.
 * Then: constantTimeEqual / timingSafeEqualStrings are correct for any pair of strings.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import ts from 'typescript';
import { constantTimeEqual } from '../../src/auth/secrets';
import { timingSafeEqualStrings } from '../../src/webhook-transport/signatures';

const ROOT = path.resolve(__dirname, '../..');
const SECRET_WORDS = new Set([
  'token',
  'tokens',
  'key',
  'secret',
  'secrets',
  'signature',
  'sig',
  'hash',
  'digest',
  'password',
  'passwd',
  'jwt',
  'hmac',
  'mac',
  'credential',
  'apikey',
]);
/** A name ending in one of these is metadata about a secret, not the secret (tokenId, key_prefix, keyHeader…). */
const METADATA_WORDS = new Set([
  'id',
  'ids',
  'prefix',
  'count',
  'length',
  'len',
  'kind',
  'type',
  'status',
  'name',
  'at',
  'size',
  'version',
  'index',
  'header',
  'headers',
  'mode',
  'format',
  'url',
  'expires',
  'style',
  'scope',
  'scopes',
  'source',
  'bytes',
  'chars',
  'max',
  'min',
  'limit',
  'ms',
  'hours',
  'days',
]);
const EQUALITY = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/**
 * Comparisons that involve no secret, each with the reason. Keyed by file and the comparison's text
 * (whitespace collapsed). A new flagged comparison must either use constantTimeEqual /
 * timingSafeEqualStrings or be added here with its reason.
 */
const ALLOW_LIST: { file: string; text: string; why: string }[] = [
  {
    file: 'src/api/openapi-examples.ts',
    text: "key === 'at'",
    why: 'a schema field name, choosing an example value for the OpenAPI document',
  },
  {
    file: 'src/judging/program/rules.ts',
    text: 'token === b[index]',
    why: "a program's output against a test's expected output, on the worker after the run: the competitor sees only the verdict, never the comparison's time",
  },
  {
    file: 'src/judging/sandbox/sandbox-runtime.ts',
    text: 'bwrapLauncher?.options !== key',
    why: "the launcher's options (paths, limits) as a cache key, not a credential",
  },
  {
    file: 'src/judging/sandbox/warm-pool.ts',
    text: 'entry.key !== key',
    why: "a warm sandbox's launch key (script, flags, limits), not a credential",
  },
  {
    file: 'src/judging/sandbox/warm-pool.ts',
    text: 'entry.key === key',
    why: "a warm sandbox's launch key (script, flags, limits), not a credential",
  },
  {
    file: 'src/judging/sandbox/warm-pool.ts',
    text: 'launch.key === key',
    why: "a launch under way's key (script or command, binds, limits), not a credential",
  },
  {
    file: 'src/api/middleware/idempotency.ts',
    text: 'row.request_hash !== bodyHash',
    why: 'hash of the request body (is this the same request?), not a credential',
  },
  {
    file: 'src/domain/submissions/intake.ts',
    text: 'existing.artifact_hash !== hash',
    why: 'content hash of a submission (idempotent replay check), not a credential',
  },
  {
    file: 'src/domain/challenges/lifecycle.ts',
    text: "key === 'starts_at'",
    why: 'an object key (field name) of a PATCH body',
  },
  {
    file: 'src/domain/challenges/lifecycle.ts',
    text: "key === 'ends_at'",
    why: 'an object key (field name) of a PATCH body',
  },
  {
    file: 'src/config.ts',
    text: "env.AUTH_JWT_SECRET === 'dev-secret-change-me'",
    why: 'startup check that production does not run with the published dev default; no attacker input',
  },
  {
    file: 'src/config.ts',
    text: "env.WEBHOOK_SECRET_KEY === 'dev-webhook-key-change-me'",
    why: 'startup check that production does not run with the published dev default; no attacker input',
  },
];

export interface Finding {
  file: string;
  line: number;
  text: string;
}

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function unwrap(node: ts.Expression): ts.Expression {
  let n = node;
  while (
    ts.isParenthesizedExpression(n) ||
    ts.isNonNullExpression(n) ||
    ts.isAsExpression(n) ||
    ts.isAwaitExpression(n) ||
    ts.isTypeAssertionExpression(n)
  )
    n = n.expression;
  return n;
}

/** The name of the value being compared (last property, callee, identifier), or null for literals and the like. */
function comparedName(node: ts.Expression): string | null {
  const n = unwrap(node);
  if (ts.isIdentifier(n)) return n.text === 'undefined' ? null : n.text;
  if (ts.isPropertyAccessExpression(n)) return n.name.text;
  if (ts.isElementAccessExpression(n))
    return ts.isStringLiteralLike(n.argumentExpression)
      ? n.argumentExpression.text
      : comparedName(n.expression);
  if (ts.isCallExpression(n)) return comparedName(n.expression);
  return null;
}

/** Presence and type checks: null, undefined, '', numbers, booleans, typeof x. */
function isPresenceOrTypeCheck(node: ts.Expression): boolean {
  const n = unwrap(node);
  return (
    n.kind === ts.SyntaxKind.NullKeyword ||
    n.kind === ts.SyntaxKind.TrueKeyword ||
    n.kind === ts.SyntaxKind.FalseKeyword ||
    (ts.isIdentifier(n) && n.text === 'undefined') ||
    ts.isNumericLiteral(n) ||
    (ts.isPrefixUnaryExpression(n) && ts.isNumericLiteral(n.operand)) ||
    (ts.isStringLiteralLike(n) && n.text === '') ||
    ts.isTypeOfExpression(n) ||
    ts.isVoidExpression(n)
  );
}

function secretNamed(node: ts.Expression): boolean {
  const name = comparedName(node);
  if (!name) return false;
  const w = words(name);
  return w.some((x) => SECRET_WORDS.has(x)) && !METADATA_WORDS.has(w[w.length - 1]);
}

/** Every equality comparison in `source` whose compared value is named like a secret. */
export function findSecretComparisons(file: string, source: string): Finding[] {
  const sf = ts.createSourceFile(
    file,
    source,
    ts.ScriptTarget.ES2022,
    true,
    file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS,
  );
  const findings: Finding[] = [];
  const flag = (node: ts.Node) =>
    findings.push({
      file,
      line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1,
      text: node.getText(sf).replace(/\s+/g, ' '),
    });
  const visit = (node: ts.Node) => {
    if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind)) {
      const [l, r] = [node.left, node.right];
      if (!isPresenceOrTypeCheck(l) && !isPresenceOrTypeCheck(r) && (secretNamed(l) || secretNamed(r)))
        flag(node);
    }
    if (ts.isSwitchStatement(node) && secretNamed(node.expression)) {
      for (const clause of node.caseBlock.clauses)
        if (ts.isCaseClause(clause) && !isPresenceOrTypeCheck(clause.expression)) flag(clause.expression);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return findings;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|cjs|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts') ? [full] : [];
  });
}

describe('secret comparisons in src/** go through constant-time helpers', () => {
  const files = sourceFiles(path.join(ROOT, 'src'));
  const findings = files.flatMap((f) =>
    findSecretComparisons(path.relative(ROOT, f), readFileSync(f, 'utf8')),
  );
  const allowed = (f: Finding) => ALLOW_LIST.some((a) => a.file === f.file && a.text === f.text);

  test('the scan covers the source tree', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files.some((f) => f.endsWith(path.join('auth', 'authenticate.ts')))).toBe(true);
  });

  test('no secret is compared with ===, !==, ==, != or switch outside the allow-list', () => {
    const offending = findings.filter((f) => !allowed(f)).map((f) => `${f.file}:${f.line}  ${f.text}`);
    expect(offending).toEqual([]);
  });

  test('every allow-list entry still exists (the list stays honest)', () => {
    const stale = ALLOW_LIST.filter((a) => !findings.some((f) => f.file === a.file && f.text === a.text)).map(
      (a) => `${a.file}: ${a.text}`,
    );
    expect(stale).toEqual([]);
  });

  test('credential checks use the constant-time helpers', () => {
    const authenticate = readFileSync(path.join(ROOT, 'src/auth/authenticate.ts'), 'utf8');
    expect(authenticate.match(/constantTimeEqual\(row\.(token|key)_hash, hash\)/g)).toHaveLength(2);
    const signatures = readFileSync(path.join(ROOT, 'src/webhook-transport/signatures.ts'), 'utf8');
    expect(signatures).toMatch(/return timingSafeEqualStrings\(signSvcSignature\(/);
  });
});

describe('the scanner itself', () => {
  const scan = (code: string) => findSecretComparisons('x.ts', code).map((f) => f.text);

  test('flags direct comparisons of secret-named values', () => {
    expect(scan('if (token === provided) {}')).toEqual(['token === provided']);
    expect(scan('if (row.token_hash !== hash) {}')).toEqual(['row.token_hash !== hash']);
    expect(scan('const ok = expectedSignature == header;')).toEqual(['expectedSignature == header']);
    expect(scan("if (computeHmac(body) != req.headers['x-sig']) {}")).toEqual([
      "computeHmac(body) != req.headers['x-sig']",
    ]);
    expect(scan('if ((cfg.apiKey as string)! === input) {}')).toEqual(['(cfg.apiKey as string)! === input']);
    expect(scan("switch (secret) { case 'a': break; }")).toEqual(["'a'"]);
    expect(scan("if (createHash('sha256').update(a).digest('hex') === b) {}")).toHaveLength(1);
  });

  test('leaves constant-time helpers, metadata and presence checks alone', () => {
    expect(scan('if (constantTimeEqual(token, provided)) {}')).toEqual([]);
    expect(scan("if (principal.kind === 'apiToken') {}")).toEqual([]);
    expect(scan('if (principal.tokenId !== token.id) {}')).toEqual([]);
    expect(scan('if (headers.agentKey !== undefined && token !== null && key !== "") {}')).toEqual([]);
    expect(scan("if (typeof key === 'string' && keys.length === 0) {}")).toEqual([]);
    expect(scan('if (row.key_prefix === prefix) {}')).toEqual([]);
  });
});

describe('constantTimeEqual and timingSafeEqualStrings', () => {
  const helpers = [
    ['constantTimeEqual', constantTimeEqual],
    ['timingSafeEqualStrings', timingSafeEqualStrings],
  ] as const;

  test.each(helpers)('%s: fixed cases', (_name, equal) => {
    const token = 'svc_sk_live_' + 'A'.repeat(43);
    expect(equal(token, token)).toBe(true);
    expect(equal(token, `${token.slice(0, -1)}B`)).toBe(false); // differs in the last character
    expect(equal(token, `B${token.slice(1)}`)).toBe(false); // differs in the first character
    expect(equal(token, token.slice(0, -1))).toBe(false); // a prefix (different lengths never throw)
    expect(equal(token, `${token}A`)).toBe(false);
    expect(equal('', '')).toBe(true);
    expect(equal('', 'a')).toBe(false);
    expect(equal('é', 'e\u0301')).toBe(false); // no normalisation: bytes decide
    expect(equal('😀', '😀')).toBe(true);
    expect(equal('a\u0000', 'a')).toBe(false);
    expect(equal('x'.repeat(100_000), 'x'.repeat(100_000))).toBe(true);
  });

  test.each(helpers)('%s agrees with === on any pair of strings (property)', (_name, equal) => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        (a, b) => equal(a, b) === (a === b),
      ),
      { numRuns: 2000, seed: 42 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1 }), (a) => equal(a, a) && !equal(a, `${a}\u0000`)),
      { numRuns: 500, seed: 42 },
    );
  });
});
