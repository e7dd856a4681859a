'use strict';
/*
 * Sandbox child process for the `tests` judge. Started by run-in-sandbox.ts as
 *
 *   node --experimental-permission --allow-fs-read=<this file> --max-old-space-size=<n> ... sandbox-runner.cjs
 *
 * inside the bubblewrap sandbox of os-sandbox.ts (this file is copied in read-only),
 * so this process cannot write files, read any file but this one, spawn processes or start
 * workers. Inside it, the submission runs in a fresh vm context that holds only the JavaScript
 * built-ins: no `process`, no `require` of Node modules, no timers, no `fetch`, no string code
 * generation. The vm context is not a security boundary on its own; the permission model, the
 * memory flags and the parent's SIGKILL watchdog are what contain a submission that gets out.
 *
 * Protocol (the calls of one group of test cases per process, each in a fresh vm context):
 *   child  -> parent  {"type":"ready"}\n                    as soon as the runtime is up
 *   parent -> child   one JSON request on stdin, then EOF
 *   child  -> parent  {"type":"result","nonce":"...","index":i,"payload":"<JSON text>"}\n  per call, in order
 * The parent validates every line; anything else counts as a crashed test.
 *
 * Plain JavaScript on purpose: this file is executed directly by `node` (no transpiler), and
 * the harness's phases (createHarness) are serialised with Function.prototype.toString into the vm
 * context.
 */
// Executed by plain `node`, so CommonJS require is the right import here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const vm = require('node:vm');

// Captured before any submitted code runs.
const hostProcess = process;
const writeStdout = process.stdout.write.bind(process.stdout);
const MAX_PAYLOAD_CHARS = 1_000_000;

/** Writes one result line; resolves once it is handed to the pipe. */
function writeResult(nonce, index, payload) {
  return new Promise((resolve) => {
    writeStdout(JSON.stringify({ type: 'result', nonce, index, payload }) + '\n', () => resolve());
  });
}

function readStdin() {
  return new Promise((resolve, reject) => {
    let text = '';
    hostProcess.stdin.setEncoding('utf8');
    hostProcess.stdin.on('data', (chunk) => (text += chunk));
    hostProcess.stdin.on('end', () => resolve(text));
    hostProcess.stdin.on('error', reject);
  });
}

/**
 * Runs INSIDE the vm context (its source is compiled there), so every object it creates belongs
 * to the submission's realm and no host object is ever handed to submitted code. It must not
 * reference anything outside its own body. It only ever returns strings to the runner.
 */
/**
 * The realm's built-ins, captured before any submitted code runs, so that a submission tampering
 * with globals or prototypes cannot break the harness. (Tampering can at most distort its own
 * reported value, which it could return directly anyway: pass/fail is decided by the parent.)
 */
function capturePrimordials() {
  'use strict';
  const reflectApply = Reflect.apply;
  const objectCreate = Object.create;
  const objectFreeze = Object.freeze;
  const objectKeys = Object.keys;
  const objectIs = Object.is;
  const hasOwn = Object.hasOwn;
  const isArray = Array.isArray;
  const jsonParse = JSON.parse;
  const jsonStringify = JSON.stringify;
  const StringCtor = String;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const objectToString = Object.prototype.toString;
  const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size').get;
  const setSize = Object.getOwnPropertyDescriptor(Set.prototype, 'size').get;
  const stringSlice = String.prototype.slice;
  const stringSplit = String.prototype.split;
  const stringStartsWith = String.prototype.startsWith;
  const stringEndsWith = String.prototype.endsWith;
  const stringLastIndexOf = String.prototype.lastIndexOf;
  const arrayJoin = Array.prototype.join;

  const slice = (s, a, b) => reflectApply(stringSlice, s, [a, b]);
  const startsWith = (s, p) => reflectApply(stringStartsWith, s, [p]);
  const endsWith = (s, p) => reflectApply(stringEndsWith, s, [p]);

  return objectFreeze({
    reflectApply,
    objectCreate,
    objectFreeze,
    objectKeys,
    objectIs,
    hasOwn,
    isArray,
    jsonParse,
    jsonStringify,
    StringCtor,
    ErrorCtor,
    TypeErrorCtor,
    PromiseCtor,
    promiseThen,
    objectToString,
    mapSize,
    setSize,
    stringSlice,
    stringSplit,
    stringStartsWith,
    stringEndsWith,
    stringLastIndexOf,
    arrayJoin,
    slice,
    startsWith,
    endsWith,
  });
}

/** console.* of the submission, captured into a bounded log. */
function createConsoleCapture(p, limits) {
  'use strict';
  const { reflectApply, objectFreeze, jsonStringify, StringCtor, objectToString, slice } = p;
  let logText = '';
  let logsTruncated = false;

  function printable(value) {
    if (typeof value === 'string') return value;
    if (value !== null && (typeof value === 'object' || typeof value === 'function')) {
      try {
        const json = jsonStringify(value);
        if (typeof json === 'string') return json;
      } catch {
        // fall through to the tag
      }
      try {
        return reflectApply(objectToString, value, []);
      } catch {
        return '[unprintable]';
      }
    }
    try {
      return StringCtor(value);
    } catch {
      return '[unprintable]';
    }
  }

  function appendLog(prefix, args) {
    if (logsTruncated) return;
    let line = prefix;
    for (let i = 0; i < args.length && line.length <= limits.maxLogChars; i++) {
      line += (i === 0 ? '' : ' ') + printable(args[i]);
    }
    const room = limits.maxLogChars - logText.length;
    if (line.length + 1 > room) {
      logText += slice(line, 0, Math.max(0, room));
      logsTruncated = true;
    } else {
      logText += line + '\n';
    }
  }

  globalThis.console = objectFreeze({
    log: (...args) => appendLog('', args),
    info: (...args) => appendLog('', args),
    debug: (...args) => appendLog('', args),
    warn: (...args) => appendLog('[warn] ', args),
    error: (...args) => appendLog('[error] ', args),
  });

  return objectFreeze({ printable, logs: () => ({ text: logText, truncated: logsTruncated }) });
}

/** A CommonJS shim over the submission's own files only: no built-ins, no packages. */
function createModuleShim(p) {
  'use strict';
  const {
    reflectApply,
    objectCreate,
    hasOwn,
    jsonParse,
    ErrorCtor,
    TypeErrorCtor,
    stringSplit,
    stringLastIndexOf,
    arrayJoin,
    slice,
    startsWith,
    endsWith,
  } = p;
  const CODE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'];
  // TypeScript sources conventionally import './x.js' for './x.ts'.
  const JS_TO_TS = [
    ['.js', '.ts'],
    ['.jsx', '.tsx'],
    ['.mjs', '.mts'],
    ['.cjs', '.cts'],
  ];

  const modules = objectCreate(null); // normalised path -> { kind: 'js' | 'json', payload }
  const cache = objectCreate(null); // normalised path -> module object

  function register(path, kind, payload) {
    modules[path] = { kind, payload };
  }

  function normalize(path) {
    const parts = reflectApply(stringSplit, path, ['/']);
    const out = [];
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (out.length === 0) return null;
        out.length -= 1;
      } else {
        out[out.length] = part;
      }
    }
    return reflectApply(arrayJoin, out, ['/']);
  }

  function dirnameOf(path) {
    const index = reflectApply(stringLastIndexOf, path, ['/']);
    return index < 0 ? '' : slice(path, 0, index);
  }

  function moduleNotFound(specifier, reason) {
    const error = new ErrorCtor("Cannot find module '" + specifier + "': " + reason);
    error.code = 'MODULE_NOT_FOUND';
    return error;
  }

  function resolve(specifier, fromDir) {
    if (typeof specifier !== 'string') throw new TypeErrorCtor('require() expects a string');
    const relative =
      specifier === '.' ||
      specifier === '..' ||
      startsWith(specifier, './') ||
      startsWith(specifier, '../') ||
      startsWith(specifier, '/');
    if (!relative) {
      throw moduleNotFound(
        specifier,
        "only the submission's own files can be required (relative paths); " +
          'built-in modules and packages are not available in the sandbox',
      );
    }
    const base = normalize(startsWith(specifier, '/') ? specifier : fromDir + '/' + specifier);
    if (base === null) throw moduleNotFound(specifier, 'the path leaves the submission');
    const candidates = [];
    if (base !== '') candidates[candidates.length] = base;
    for (let i = 0; i < JS_TO_TS.length; i++) {
      if (endsWith(base, JS_TO_TS[i][0])) {
        candidates[candidates.length] = slice(base, 0, base.length - JS_TO_TS[i][0].length) + JS_TO_TS[i][1];
      }
    }
    for (let i = 0; i < CODE_EXTENSIONS.length; i++)
      candidates[candidates.length] = base + CODE_EXTENSIONS[i];
    const indexBase = base === '' ? 'index' : base + '/index';
    for (let i = 0; i < CODE_EXTENSIONS.length; i++)
      candidates[candidates.length] = indexBase + CODE_EXTENSIONS[i];
    for (let i = 0; i < candidates.length; i++) {
      if (hasOwn(modules, candidates[i])) return candidates[i];
    }
    throw moduleNotFound(specifier, 'no such file in the submission');
  }

  function makeRequire(fromDir) {
    const require = function require(specifier) {
      return load(resolve(specifier, fromDir));
    };
    require.resolve = (specifier) => '/' + resolve(specifier, fromDir);
    return require;
  }

  function load(path) {
    if (hasOwn(cache, path)) return cache[path].exports;
    const record = modules[path];
    const module = { exports: {}, id: '/' + path, filename: '/' + path, loaded: false };
    cache[path] = module;
    try {
      if (record.kind === 'json') {
        module.exports = jsonParse(record.payload);
      } else {
        const dir = dirnameOf(path);
        reflectApply(record.payload, module.exports, [
          module.exports,
          makeRequire(dir),
          module,
          '/' + path,
          '/' + dir,
        ]);
      }
    } catch (error) {
      delete cache[path];
      throw error;
    }
    module.loaded = true;
    return module.exports;
  }

  return p.objectFreeze({ register, load });
}

/** Describes what the submission threw or returned, within the report's limits. */
function createValueDescriber(p, limits, printable) {
  'use strict';
  const { reflectApply, objectKeys, objectIs, isArray, StringCtor, ErrorCtor, mapSize, setSize, slice } = p;
  function clip(text, max) {
    return text.length > max ? slice(text, 0, max) + '…' : text;
  }

  function safeString(value) {
    try {
      return typeof value === 'string' ? value : StringCtor(value);
    } catch {
      return '';
    }
  }

  function describeThrown(error) {
    try {
      if (error instanceof ErrorCtor) {
        const name = clip(safeString(error.name), 200) || 'Error';
        const message = clip(safeString(error.message), limits.maxMessageChars);
        return message ? name + ': ' + message : name;
      }
      return 'a non-Error value was thrown: ' + clip(printable(error), limits.maxMessageChars);
    } catch {
      return 'an unprintable value was thrown';
    }
  }

  class OutputLimitError {
    constructor(message) {
      this.message = message;
    }
  }

  /**
   * Encodes a returned value as a tagged tree the parent can compare with the expected JSON
   * without ambiguity (undefined, NaN, functions... stay distinct from null and strings).
   * Follows JSON.stringify in calling toJSON (so a Date compares as its ISO string).
   */
  function encode(root) {
    let budget = limits.maxResultChars;
    const ancestors = [];
    function charge(amount) {
      budget -= amount;
      if (budget < 0) {
        throw new OutputLimitError(
          'the returned value is too large to compare (limit ' + limits.maxResultChars + ' characters)',
        );
      }
    }
    function visit(value, depth) {
      switch (typeof value) {
        case 'undefined':
          charge(6);
          return ['u'];
        case 'boolean':
          charge(10);
          return ['b', value];
        case 'number':
          charge(26);
          if (value !== value || value === Infinity || value === -Infinity) return ['n', StringCtor(value)];
          return ['n', objectIs(value, -0) ? '-0' : value];
        case 'string':
          charge(value.length + 8);
          return ['s', value];
        case 'bigint': {
          const digits = StringCtor(value);
          charge(digits.length + 8);
          return ['i', digits];
        }
        case 'symbol': {
          const description = clip(safeString(value.description), 200);
          charge(description.length + 8);
          return ['y', description];
        }
        case 'function': {
          let name = '';
          try {
            name = clip(safeString(value.name), 200);
          } catch {
            name = '';
          }
          charge(name.length + 8);
          return ['f', name];
        }
      }
      if (value === null) {
        charge(6);
        return ['z'];
      }
      if (depth >= limits.maxDepth) {
        throw new OutputLimitError(
          'the returned value is nested more than ' + limits.maxDepth + ' levels deep',
        );
      }
      for (let i = 0; i < ancestors.length; i++) {
        if (ancestors[i] === value)
          throw new OutputLimitError('the returned value contains a circular reference');
      }
      const toJSON = value.toJSON;
      if (typeof toJSON === 'function') {
        const replaced = reflectApply(toJSON, value, ['']);
        if (replaced !== value) return visit(replaced, depth + 1);
      }
      try {
        const size = reflectApply(mapSize, value, []);
        charge(16);
        return ['m', size];
      } catch {
        // not a Map
      }
      try {
        const size = reflectApply(setSize, value, []);
        charge(16);
        return ['t', size];
      } catch {
        // not a Set
      }
      ancestors[ancestors.length] = value;
      let encoded;
      if (isArray(value)) {
        const length = value.length;
        charge(4 + length);
        const items = [];
        for (let i = 0; i < length; i++) items[i] = visit(value[i], depth + 1);
        encoded = ['a', items];
      } else {
        const keys = objectKeys(value);
        charge(4 + keys.length);
        const entries = [];
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          charge(key.length + 6);
          entries[i] = [key, visit(value[key], depth + 1)];
        }
        encoded = ['o', entries];
      }
      ancestors.length -= 1;
      return encoded;
    }
    return visit(root, 0);
  }

  return p.objectFreeze({ clip, describeThrown, encode, OutputLimitError });
}

/** One call of the entry module's export: its outcome as the report the parent reads. */
function createTestRun(p, shim, describer, consoleCapture) {
  'use strict';
  const { clip, describeThrown, encode, OutputLimitError } = describer;
  const { reflectApply, objectKeys, jsonParse, jsonStringify, PromiseCtor, promiseThen, arrayJoin } = p;
  let settled; // the final report (JSON text) once the test has an outcome

  function settle(report) {
    if (settled === undefined) {
      const logs = consoleCapture.logs();
      report.logs = logs.text;
      report.logs_truncated = logs.truncated;
      settled = jsonStringify(report);
    }
    return settled;
  }

  function reportReturned(value) {
    try {
      return settle({ status: 'returned', value: encode(value) });
    } catch (error) {
      if (error instanceof OutputLimitError)
        return settle({ status: 'unserializable', message: error.message });
      return settle({
        status: 'threw',
        message: 'reading the returned value threw: ' + describeThrown(error),
      });
    }
  }

  function pickExport(exportsObject, exportName) {
    if (
      exportsObject === null ||
      (typeof exportsObject !== 'object' && typeof exportsObject !== 'function')
    ) {
      return undefined;
    }
    const named = exportsObject[exportName];
    if (named !== undefined) return named;
    // `module.exports = function solve() {}` satisfies export "default" and export "solve".
    if (
      typeof exportsObject === 'function' &&
      (exportName === 'default' || exportsObject.name === exportName)
    ) {
      return exportsObject;
    }
    return undefined;
  }

  function describeExports(exportsObject) {
    try {
      const keys = objectKeys(exportsObject);
      return keys.length === 0
        ? 'it exports nothing'
        : 'found: ' + clip(reflectApply(arrayJoin, keys, [', ']), 300);
    } catch {
      return 'its exports could not be listed';
    }
  }

  /** Returns the report (JSON text) when the test finished synchronously, undefined while a promise is pending. */
  function start(requestJson) {
    const request = jsonParse(requestJson);
    let value;
    try {
      const exportsObject = shim.load(request.entry);
      const target = pickExport(exportsObject, request.export_name);
      if (typeof target !== 'function') {
        return settle({
          status: 'missing_export',
          message:
            'the entry module does not export a function named "' +
            request.export_name +
            '" (' +
            describeExports(exportsObject) +
            ')',
        });
      }
      value = reflectApply(target, undefined, request.args);
    } catch (error) {
      return settle({ status: 'threw', message: describeThrown(error) });
    }
    let then;
    try {
      then =
        value !== null && (typeof value === 'object' || typeof value === 'function') ? value.then : undefined;
    } catch (error) {
      return settle({ status: 'threw', message: describeThrown(error) });
    }
    if (typeof then !== 'function') return reportReturned(value);
    const promise = new PromiseCtor((resolvePromise, rejectPromise) =>
      reflectApply(then, value, [resolvePromise, rejectPromise]),
    );
    reflectApply(promiseThen, promise, [
      (resolved) => reportReturned(resolved),
      (error) =>
        settle({ status: 'threw', message: 'the returned promise rejected: ' + describeThrown(error) }),
    ]);
    return undefined;
  }

  return p.objectFreeze({ start, poll: () => settled });
}

/**
 * The harness inside the submission's realm, composed from the phases above. Every phase is
 * serialised with Function.prototype.toString and evaluated in the vm context (harnessSource), so
 * each is self-contained: what it needs comes in as arguments.
 */
function createHarness(limits, phases) {
  'use strict';
  const p = phases.capturePrimordials();
  const consoleCapture = phases.createConsoleCapture(p, limits);
  const shim = phases.createModuleShim(p);
  const describer = phases.createValueDescriber(p, limits, consoleCapture.printable);
  const run = phases.createTestRun(p, shim, describer, consoleCapture);
  return p.objectFreeze({
    register: shim.register,
    start: run.start,
    poll: run.poll,
    logs: () => consoleCapture.logs().text,
  });
}

/** The source that builds the harness inside the vm context. */
function harnessSource(limits) {
  const phases = [
    capturePrimordials,
    createConsoleCapture,
    createModuleShim,
    createValueDescriber,
    createTestRun,
  ];
  return (
    '(' +
    createHarness.toString() +
    ')(' +
    JSON.stringify(limits) +
    ', { ' +
    phases.map((phase) => phase.name + ': ' + phase.toString()).join(', ') +
    ' })'
  );
}

const START_SCRIPT = new vm.Script(
  `(() => {
    const start = globalThis.__judgeStart;
    const request = globalThis.__judgeRequest;
    delete globalThis.__judgeStart;
    delete globalThis.__judgeRequest;
    return start(request);
  })()`,
  { filename: 'judge-start.js' },
);

/** Running any script drains the context's microtask queue (microtaskMode 'afterEvaluate'). */
const PUMP_SCRIPT = new vm.Script('undefined', { filename: 'judge-pump.js' });

/** The vm timeout error is created in the submission's realm, so it is recognised by its code. */
function isVmTimeout(error) {
  try {
    return error !== null && typeof error === 'object' && error.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
  } catch {
    return false;
  }
}

function isValidRequest(request) {
  return (
    request !== null &&
    typeof request === 'object' &&
    typeof request.nonce === 'string' &&
    Number.isInteger(request.timeout_ms) &&
    request.timeout_ms > 0 &&
    typeof request.limits === 'object' &&
    Array.isArray(request.modules) &&
    request.modules.every(
      (m) =>
        m !== null &&
        typeof m === 'object' &&
        typeof m.path === 'string' &&
        (m.kind === 'js' || m.kind === 'json') &&
        typeof m.source === 'string',
    ) &&
    Array.isArray(request.calls) &&
    request.calls.length > 0 &&
    request.calls.every(
      (call) =>
        call !== null &&
        typeof call === 'object' &&
        typeof call.entry === 'string' &&
        typeof call.export_name === 'string' &&
        Array.isArray(call.args),
    )
  );
}

/** The call whose outcome an escaped exception belongs to. */
let settleCurrent;

/**
 * Runs one call in a context of its own (fresh realm, fresh module instances): nothing a call
 * does to its globals or modules is seen by the next. Resolves with the report (JSON text).
 */
function runCall(request, call) {
  return new Promise((resolve) => {
    let done = false;
    const settleText = (text) => {
      if (done) return;
      done = true;
      settleCurrent = undefined;
      resolve(text);
    };
    const report = (object) => settleText(JSON.stringify(object));
    settleCurrent = report;

    const context = vm.createContext(Object.create(null), {
      name: 'submission',
      codeGeneration: { strings: false, wasm: false },
      // The context gets its own microtask queue, drained inside runInContext and therefore under
      // its timeout: an `await`-driven infinite loop is stopped here too, not only by the parent.
      microtaskMode: 'afterEvaluate',
    });
    // No host-realm object may ever reach submitted code, whichever host callback would produce
    // it (the class, not one instance): host JavaScript called from the submission's stack (V8's
    // stack formatting via Node's prepareStackTrace callback, an import() hook) throws errors of
    // the HOST realm when it runs out of stack, and any host object leads to the host's
    // prototypes. So: (1) the realm captures no stack traces at all (Error.stackTraceLimit is
    // locked to a non-number: V8 then neither records frames nor calls the formatting callback;
    // the judge reports name and message only); (2) import() is refused by a function of the
    // realm itself (Node needs --experimental-vm-modules for the hook on Node 20); (3) the host's
    // own intrinsics are frozen (--frozen-intrinsics: a host object that still got through cannot
    // poison a host prototype or install a host Error.prepareStackTrace), string compilation is
    // off in both realms, and the host global no longer holds `process` (main() keeps its own).
    vm.runInContext(
      "Object.defineProperty(Error, 'stackTraceLimit', { value: undefined, writable: false, configurable: false });",
      context,
    );
    const refuseImport = vm.runInContext(
      `(function refuseImport() {
        throw new TypeError('import() is not available in the sandbox: use require() of relative paths');
      })`,
      context,
    );
    const harness = new vm.Script(harnessSource(request.limits), {
      filename: 'judge-harness.js',
    }).runInContext(context);
    const { register, start, poll, logs } = harness;

    for (const module of request.modules) {
      if (module.kind === 'json') {
        register(module.path, 'json', module.source);
        continue;
      }
      let factory;
      try {
        factory = vm.compileFunction(
          module.source,
          ['exports', 'require', 'module', '__filename', '__dirname'],
          {
            parsingContext: context,
            filename: '/' + module.path,
            importModuleDynamically: refuseImport,
          },
        );
      } catch (error) {
        // V8's own SyntaxError (possibly from the context's realm); no submitted code has run yet.
        const message = error && typeof error.message === 'string' ? error.message : 'invalid source';
        report({ status: 'threw', message: `SyntaxError in ${module.path}: ${message}`, logs: '' });
        return;
      }
      register(module.path, 'js', factory);
    }

    const startedAt = Date.now();
    const remaining = () => Math.max(1, request.timeout_ms - (Date.now() - startedAt));
    const runUnderTimeout = (script) => {
      try {
        return { value: script.runInContext(context, { timeout: remaining() }) };
      } catch (error) {
        if (isVmTimeout(error)) report({ status: 'timeout', logs: logs() });
        else report({ status: 'runner_error', message: 'the test harness failed' });
        return undefined;
      }
    };
    const deliver = (text) => {
      if (typeof text === 'string' && text.length <= MAX_PAYLOAD_CHARS) settleText(text);
      else report({ status: 'unserializable', message: 'the test report is too large' });
    };

    context.__judgeStart = start;
    context.__judgeRequest = JSON.stringify(call);
    const started = runUnderTimeout(START_SCRIPT);
    if (started === undefined) return;
    if (started.value !== undefined) {
      deliver(started.value);
      return;
    }
    // A returned promise normally settled while the microtask queue was drained above. One that
    // waits on something else (e.g. Atomics.waitAsync) is polled, pumping the context's microtask
    // queue under the remaining time, until the limit.
    const pollForResult = () => {
      if (done) return;
      if (runUnderTimeout(PUMP_SCRIPT) === undefined) return;
      const settled = poll();
      if (settled !== undefined) deliver(settled);
      else if (Date.now() - startedAt >= request.timeout_ms) report({ status: 'timeout', logs: logs() });
      else setTimeout(pollForResult, 5);
    };
    pollForResult();
  });
}

// The host global keeps nothing a host object could lead to (this module keeps its own reference).
delete globalThis.process;
delete globalThis.Buffer;
delete globalThis.global;

async function main() {
  writeStdout(JSON.stringify({ type: 'ready' }) + '\n');
  const request = JSON.parse(await readStdin());
  if (!isValidRequest(request)) throw new Error('malformed request');

  // A late rejection or callback error belongs to the submission; never let it crash the
  // runner before the result is written (and never touch the submission's error value).
  hostProcess.on('unhandledRejection', () => {});
  hostProcess.on('uncaughtException', () =>
    settleCurrent?.({ status: 'threw', message: 'an exception escaped the test' }),
  );

  // The calls run one after another, each under its own time limit; the parent restarts the
  // remaining ones in a new process when one ends this process (memory, hard timeout).
  for (let index = 0; index < request.calls.length; index++) {
    const payload = await runCall(request, request.calls[index]);
    await writeResult(request.nonce, index, payload);
  }
  hostProcess.exit(0);
}

main().catch(() => {
  // Nothing the submission controls reaches here; exit without a result and let the parent
  // report a crashed runner.
  hostProcess.exit(70);
});
