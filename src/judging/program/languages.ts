/**
 * The languages of the `program` judge: how each is detected, compiled and run inside the wall.
 * Every runtime is a Debian package at a fixed path (never a PATH shim such as pyenv, rustup or a
 * Go in /usr/local: those do not exist inside the wall); scripts/lib.sh installs them.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const LANGUAGE_IDS = ['python', 'c', 'cpp', 'go', 'rust', 'java', 'javascript', 'typescript'] as const;
export type LanguageId = (typeof LANGUAGE_IDS)[number];

/** Where the entry file is put inside the sandbox; the build folder is bound here. */
export const BUILD_DIR = '/build';

const SANDBOX_WORK_DIR_FOR_GO = '/work';

export const JAVA_HOME = '/usr/lib/jvm/java-17-openjdk-amd64';

/** Debian's Go (golang-go): the newest /usr/lib/go-<version>/bin/go. */
export function debianGoRoot(): string | undefined {
  let versions: string[];
  try {
    versions = readdirSync('/usr/lib').filter((entry) => /^go-\d+\.\d+$/.test(entry));
  } catch {
    return undefined;
  }
  const newest = versions.sort((a, b) => {
    const [aMajor, aMinor] = a.slice(3).split('.').map(Number);
    const [bMajor, bMinor] = b.slice(3).split('.').map(Number);
    return bMajor - aMajor || bMinor - aMinor;
  })[0];
  return newest === undefined ? undefined : path.join('/usr/lib', newest);
}

/** The prepared standard-library cache, bound read-only inside the sandbox. */
export const GO_PREBUILT_CACHE_DIR = '/gocache-prebuilt';
/**
 * Go writes to its cache, so each build gets one in its own tmpfs: a tree of symlinks into the
 * prebuilt one (cp -rs, milliseconds), in which only the submission's own packages are new files.
 */
const GO_CACHE_DIR = `${SANDBOX_WORK_DIR_FOR_GO}/gocache`;

export interface CommandSpec {
  argv: string[];
  env?: Record<string, string>;
}

export interface RunSettings {
  /** The judge's memory limit, MB. */
  memoryMb: number;
}

export interface LanguageSpec {
  id: LanguageId;
  name: string;
  /** With the dot; the first is the entry's (`main.py`). */
  extensions: readonly string[];
  /** Other names accepted in a file's `language` and a fence's info string. */
  aliases: readonly string[];
  /**
   * A compile step produces what runs (in the wall, or for TypeScript esbuild's transform in a
   * toolchain process of its own: toolchain/run-esbuild.ts).
   * Python and JavaScript are not compiled but get a syntax check (compileCommand) all the same.
   */
  compiled: boolean;
  /** The name the entry is written under in the build folder. */
  sourceFile: string;
  /** The host binary whose presence is required (the Debian package's). */
  runtimeBinary: () => string | undefined;
  /** Prints the version (stdout or stderr); the first match of versionPattern is it. */
  versionCommand: () => CommandSpec;
  versionPattern: RegExp;
  /** Compile or syntax-check inside the wall (`build` writable at BUILD_DIR); TypeScript: see build.ts. */
  compileCommand?: () => CommandSpec;
  runCommand: (settings: RunSettings) => CommandSpec;
  /** Memory the runtime needs beyond the program's limit (the cgroup gets limit + this). */
  runtimeOverheadMb: number;
  /** Words in stderr by which the runtime says it ran out of memory. */
  outOfMemory?: RegExp;
}

const fixed = (file: string) => () => (existsSync(file) ? file : undefined);

const NATIVE_OOM = /std::bad_alloc|memory allocation of \d+ bytes failed|out of memory/i;

export const LANGUAGES: Readonly<Record<LanguageId, LanguageSpec>> = {
  python: {
    id: 'python',
    name: 'Python 3',
    extensions: ['.py'],
    aliases: ['py', 'python3'],
    compiled: false,
    sourceFile: 'main.py',
    runtimeBinary: fixed('/usr/bin/python3'),
    versionCommand: () => ({ argv: ['/usr/bin/python3', '--version'] }),
    versionPattern: /Python (\d+\.\d+\.\d+)/,
    // A syntax check, so a syntax error is a compile error as in the compiled languages.
    compileCommand: () => ({ argv: ['/usr/bin/python3', '-m', 'py_compile', `${BUILD_DIR}/main.py`] }),
    runCommand: () => ({ argv: ['/usr/bin/python3', '-B', `${BUILD_DIR}/main.py`] }),
    runtimeOverheadMb: 16,
    outOfMemory: /\bMemoryError\b/,
  },
  c: {
    id: 'c',
    name: 'C (GCC)',
    extensions: ['.c'],
    aliases: [],
    compiled: true,
    sourceFile: 'main.c',
    runtimeBinary: fixed('/usr/bin/gcc'),
    versionCommand: () => ({ argv: ['/usr/bin/gcc', '-dumpfullversion'] }),
    versionPattern: /(\d+\.\d+(?:\.\d+)?)/,
    compileCommand: () => ({
      argv: [
        '/usr/bin/gcc',
        '-O2',
        '-std=gnu17',
        '-pipe',
        '-o',
        `${BUILD_DIR}/main`,
        `${BUILD_DIR}/main.c`,
        '-lm',
      ],
    }),
    runCommand: () => ({ argv: [`${BUILD_DIR}/main`] }),
    runtimeOverheadMb: 8,
    outOfMemory: NATIVE_OOM,
  },
  cpp: {
    id: 'cpp',
    name: 'C++ (G++)',
    extensions: ['.cpp', '.cc', '.cxx'],
    aliases: ['c++', 'cxx'],
    compiled: true,
    sourceFile: 'main.cpp',
    runtimeBinary: fixed('/usr/bin/g++'),
    versionCommand: () => ({ argv: ['/usr/bin/g++', '-dumpfullversion'] }),
    versionPattern: /(\d+\.\d+(?:\.\d+)?)/,
    compileCommand: () => ({
      argv: [
        '/usr/bin/g++',
        '-O2',
        '-std=gnu++17',
        '-pipe',
        '-o',
        `${BUILD_DIR}/main`,
        `${BUILD_DIR}/main.cpp`,
      ],
    }),
    runCommand: () => ({ argv: [`${BUILD_DIR}/main`] }),
    runtimeOverheadMb: 8,
    outOfMemory: NATIVE_OOM,
  },
  go: {
    id: 'go',
    name: 'Go',
    extensions: ['.go'],
    aliases: ['golang'],
    compiled: true,
    sourceFile: 'main.go',
    runtimeBinary: () => {
      const root = debianGoRoot();
      return root && existsSync(`${root}/bin/go`) ? `${root}/bin/go` : undefined;
    },
    versionCommand: () => ({ argv: [`${debianGoRoot()}/bin/go`, 'version'], env: goEnv() }),
    versionPattern: /go(\d+\.\d+(?:\.\d+)?)/,
    compileCommand: () => ({
      argv: [
        '/bin/sh',
        '-c',
        `cp -rs ${GO_PREBUILT_CACHE_DIR} ${GO_CACHE_DIR} && exec "$0" build -o ${BUILD_DIR}/main ${BUILD_DIR}/main.go`,
        `${debianGoRoot()}/bin/go`,
      ],
      env: goEnv(),
    }),
    runCommand: () => ({ argv: [`${BUILD_DIR}/main`] }),
    runtimeOverheadMb: 16,
    outOfMemory: /runtime: out of memory|fatal error: out of memory/,
  },
  rust: {
    id: 'rust',
    name: 'Rust',
    extensions: ['.rs'],
    aliases: ['rs'],
    compiled: true,
    sourceFile: 'main.rs',
    runtimeBinary: fixed('/usr/bin/rustc'),
    versionCommand: () => ({ argv: ['/usr/bin/rustc', '--version'] }),
    versionPattern: /rustc (\d+\.\d+\.\d+)/,
    compileCommand: () => ({
      argv: [
        '/usr/bin/rustc',
        '-O',
        '--edition',
        '2021',
        '-C',
        'linker=/usr/bin/gcc',
        '-o',
        `${BUILD_DIR}/main`,
        `${BUILD_DIR}/main.rs`,
      ],
    }),
    runCommand: () => ({ argv: [`${BUILD_DIR}/main`] }),
    runtimeOverheadMb: 8,
    outOfMemory: NATIVE_OOM,
  },
  java: {
    id: 'java',
    name: 'Java (OpenJDK)',
    extensions: ['.java'],
    aliases: [],
    compiled: true,
    sourceFile: 'Main.java',
    runtimeBinary: fixed(`${JAVA_HOME}/bin/javac`),
    versionCommand: () => ({ argv: [`${JAVA_HOME}/bin/java`, ...JVM_FLAGS, '-version'] }),
    versionPattern: /version "([^"]+)"/,
    compileCommand: () => ({
      argv: [
        `${JAVA_HOME}/bin/javac`,
        ...JVM_FLAGS.map((flag) => `-J${flag}`),
        '-J-Xmx512m',
        '-encoding',
        'UTF-8',
        '-d',
        BUILD_DIR,
        `${BUILD_DIR}/Main.java`,
      ],
    }),
    runCommand: ({ memoryMb }) => ({
      argv: [`${JAVA_HOME}/bin/java`, ...JVM_FLAGS, `-Xmx${memoryMb}m`, '-Xss64m', '-cp', BUILD_DIR, 'Main'],
    }),
    // Metaspace, code cache, thread stacks and the JVM itself.
    runtimeOverheadMb: 160,
    outOfMemory: /java\.lang\.OutOfMemoryError/,
  },
  javascript: {
    id: 'javascript',
    name: 'JavaScript (Node.js)',
    extensions: ['.js', '.mjs', '.cjs'],
    aliases: ['js', 'node', 'nodejs'],
    compiled: false,
    sourceFile: 'main.js',
    runtimeBinary: fixed('/usr/bin/node'),
    versionCommand: () => ({ argv: ['/usr/bin/node', '--version'] }),
    versionPattern: /v(\d+\.\d+\.\d+)/,
    // A syntax check (no code runs), so a syntax error is a compile error.
    compileCommand: () => ({ argv: ['/usr/bin/node', '--check', `${BUILD_DIR}/main.js`] }),
    runCommand: ({ memoryMb }) => ({
      argv: ['/usr/bin/node', `--max-old-space-size=${memoryMb}`, `${BUILD_DIR}/main.js`],
    }),
    runtimeOverheadMb: 64,
    outOfMemory: /heap out of memory|Reached heap limit/,
  },
  typescript: {
    id: 'typescript',
    name: 'TypeScript (esbuild, Node.js)',
    extensions: ['.ts', '.mts', '.cts'],
    aliases: ['ts'],
    compiled: true,
    // Transpiled on the host by esbuild in a child process that may die (no code runs; build.ts),
    // then run as JavaScript.
    sourceFile: 'main.js',
    runtimeBinary: fixed('/usr/bin/node'),
    versionCommand: () => ({ argv: ['/usr/bin/node', '--version'] }),
    versionPattern: /v(\d+\.\d+\.\d+)/,
    runCommand: ({ memoryMb }) => ({
      argv: ['/usr/bin/node', `--max-old-space-size=${memoryMb}`, `${BUILD_DIR}/main.js`],
    }),
    runtimeOverheadMb: 64,
    outOfMemory: /heap out of memory|Reached heap limit/,
  },
};

/** The JVM in a small sandbox: one GC thread, no shared perf file, no container probing. */
const JVM_FLAGS = ['-XX:+UseSerialGC', '-XX:-UsePerfData', '-XX:TieredStopAtLevel=1', '-Xshare:auto'];

export function goEnv(cache = GO_CACHE_DIR): Record<string, string> {
  return {
    GOCACHE: cache,
    GOPATH: '/work/gopath',
    GO111MODULE: 'off',
    CGO_ENABLED: '0',
    GOFLAGS: '-buildvcs=false',
    // The work tmpfs (64 MB) rather than /tmp (16 MB): the linker's temporary files.
    GOTMPDIR: '/work',
  };
}

const BY_NAME = new Map<string, LanguageId>();
for (const spec of Object.values(LANGUAGES)) {
  BY_NAME.set(spec.id, spec.id);
  for (const alias of spec.aliases) BY_NAME.set(alias, spec.id);
}

/** `Python3`, `c++`, ` golang ` → the language id; undefined for anything else. */
export function languageByName(name: string): LanguageId | undefined {
  return BY_NAME.get(name.trim().toLowerCase());
}

/** `src/Main.java` → java; undefined for an unknown extension. */
export function languageByExtension(filePath: string): LanguageId | undefined {
  const extension = path.posix.extname(filePath).toLowerCase();
  if (extension === '') return undefined;
  return Object.values(LANGUAGES).find((spec) => spec.extensions.includes(extension))?.id;
}
