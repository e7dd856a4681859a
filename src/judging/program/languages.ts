/**
 * The languages of the `program` judge: how each is detected, compiled and run inside the wall.
 * Every runtime is a Debian package at a fixed path (never a PATH shim such as pyenv, rustup or a
 * Go in /usr/local: those do not exist inside the wall); scripts/lib.sh installs them.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const LANGUAGE_IDS = ['python', 'c', 'cpp', 'go', 'rust', 'java', 'javascript', 'typescript'] as const;
export type LanguageId = (typeof LANGUAGE_IDS)[number];

/** The build folder inside the sandbox: what the compile step made (`main`, `classes/`, `main.js`). */
export const BUILD_DIR = '/build';
/** The submission's files, at their own paths (the submission's root). */
export const SOURCE_DIR = `${BUILD_DIR}/src`;
/** Java's main class, one line, read by the launcher as an argument file (`@file`). */
export const JAVA_MAIN_CLASS_FILE = `${BUILD_DIR}/main-class`;
export const JAVA_CLASSES_DIR = `${BUILD_DIR}/classes`;
/** JavaScript and TypeScript: the bundle esbuild made from the entry. */
export const BUNDLE_FILE = `${BUILD_DIR}/main.js`;

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

/** go.mod of every Go submission: the module `solution`, at the toolchain's own language version. */
export function goModFile(): string {
  const version = /go-(\d+\.\d+)$/.exec(debianGoRoot() ?? '')?.[1];
  return `module solution\n${version === undefined ? '' : `\ngo ${version}\n`}`;
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
  /** The entry's path in the submission (under SOURCE_DIR). */
  entry: string;
}

/**
 * What a compile command knows of the program: the entry and every submitted path (normalized,
 * relative to SOURCE_DIR). Every file is part of the program (DESIGN "Multi-file programs").
 */
export interface ProgramLayout {
  entry: string;
  files: readonly string[];
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
  /** The entry's name when the program is `content` alone (or a file without the extension). */
  entryFile: string;
  /** The host binary whose presence is required (the Debian package's). */
  runtimeBinary: () => string | undefined;
  /** Prints the version (stdout or stderr); the first match of versionPattern is it. */
  versionCommand: () => CommandSpec;
  versionPattern: RegExp;
  /**
   * Compile or syntax-check inside the wall (`build` writable at BUILD_DIR); JavaScript and
   * TypeScript are bundled by esbuild instead (build.ts).
   */
  compileCommand?: (layout: ProgramLayout) => CommandSpec;
  runCommand: (settings: RunSettings) => CommandSpec;
  /** Memory the runtime needs beyond the program's limit (the cgroup gets limit + this). */
  runtimeOverheadMb: number;
  /** Words in stderr by which the runtime says it ran out of memory. */
  outOfMemory?: RegExp;
}

const fixed = (file: string) => () => (existsSync(file) ? file : undefined);

const NATIVE_OOM = /std::bad_alloc|memory allocation of \d+ bytes failed|out of memory/i;

/** A path of the submission inside the sandbox. */
const inSource = (file: string) => `${SOURCE_DIR}/${file}`;

/** The layout's files with one of these extensions (the entry included), in the submission's order. */
function filesWith(layout: ProgramLayout, extensions: readonly string[]): string[] {
  return layout.files.filter(
    (file) => file === layout.entry || extensions.includes(path.posix.extname(file).toLowerCase()),
  );
}

/** `-I` for the submission's root and each of its folders (C and C++: `#include "add.h"` from anywhere). */
function includePaths(layout: ProgramLayout): string[] {
  const folders = new Set<string>(['']);
  for (const file of layout.files) {
    const segments = file.split('/').slice(0, -1);
    for (let i = 1; i <= segments.length; i++) folders.add(segments.slice(0, i).join('/'));
  }
  return [...folders].sort().flatMap((folder) => ['-I', folder === '' ? SOURCE_DIR : inSource(folder)]);
}

/** The entry's folder ('' at the root). */
function folderOf(file: string): string {
  const slash = file.lastIndexOf('/');
  return slash < 0 ? '' : file.slice(0, slash);
}

const C_EXTENSIONS = ['.c'];
const CPP_EXTENSIONS = ['.cpp', '.cc', '.cxx'];

export const LANGUAGES: Readonly<Record<LanguageId, LanguageSpec>> = {
  python: {
    id: 'python',
    name: 'Python 3',
    extensions: ['.py'],
    aliases: ['py', 'python3'],
    compiled: false,
    entryFile: 'main.py',
    runtimeBinary: fixed('/usr/bin/python3'),
    versionCommand: () => ({ argv: ['/usr/bin/python3', '--version'] }),
    versionPattern: /Python (\d+\.\d+\.\d+)/,
    // A syntax check of every .py, so a syntax error in any module is a compile error.
    compileCommand: (layout) => ({
      argv: ['/usr/bin/python3', '-m', 'py_compile', ...filesWith(layout, ['.py']).map(inSource)],
    }),
    // -P and PYTHONPATH: the submission's root comes first on sys.path (then the entry's folder),
    // so `from lib.adder import add` works wherever the entry is.
    runCommand: ({ entry }) => ({
      argv: ['/usr/bin/python3', '-B', '-P', inSource(entry)],
      env: {
        PYTHONPATH: [SOURCE_DIR, ...(folderOf(entry) === '' ? [] : [inSource(folderOf(entry))])].join(':'),
      },
    }),
    runtimeOverheadMb: 16,
    outOfMemory: /\bMemoryError\b/,
  },
  c: {
    id: 'c',
    name: 'C (GCC)',
    extensions: C_EXTENSIONS,
    aliases: [],
    compiled: true,
    entryFile: 'main.c',
    runtimeBinary: fixed('/usr/bin/gcc'),
    versionCommand: () => ({ argv: ['/usr/bin/gcc', '-dumpfullversion'] }),
    versionPattern: /(\d+\.\d+(?:\.\d+)?)/,
    compileCommand: (layout) => ({
      argv: [
        '/usr/bin/gcc',
        '-O2',
        '-std=gnu17',
        '-pipe',
        ...includePaths(layout),
        '-o',
        `${BUILD_DIR}/main`,
        ...filesWith(layout, C_EXTENSIONS).map(inSource),
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
    extensions: CPP_EXTENSIONS,
    aliases: ['c++', 'cxx'],
    compiled: true,
    entryFile: 'main.cpp',
    runtimeBinary: fixed('/usr/bin/g++'),
    versionCommand: () => ({ argv: ['/usr/bin/g++', '-dumpfullversion'] }),
    versionPattern: /(\d+\.\d+(?:\.\d+)?)/,
    compileCommand: (layout) => ({
      argv: [
        '/usr/bin/g++',
        '-O2',
        '-std=gnu++17',
        '-pipe',
        ...includePaths(layout),
        '-o',
        `${BUILD_DIR}/main`,
        ...filesWith(layout, CPP_EXTENSIONS).map(inSource),
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
    entryFile: 'main.go',
    runtimeBinary: () => {
      const root = debianGoRoot();
      return root && existsSync(`${root}/bin/go`) ? `${root}/bin/go` : undefined;
    },
    versionCommand: () => ({ argv: [`${debianGoRoot()}/bin/go`, 'version'], env: goEnv() }),
    versionPattern: /go(\d+\.\d+(?:\.\d+)?)/,
    // The entry's package (every .go beside it) in the module `solution` (go.mod written by
    // build.ts at the root): the submission's folders are its packages (`solution/lib`).
    compileCommand: (layout) => ({
      argv: [
        '/bin/sh',
        '-c',
        `cp -rs ${GO_PREBUILT_CACHE_DIR} ${GO_CACHE_DIR} && cd "$1" && exec "$0" build -o ${BUILD_DIR}/main .`,
        `${debianGoRoot()}/bin/go`,
        folderOf(layout.entry) === '' ? SOURCE_DIR : inSource(folderOf(layout.entry)),
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
    entryFile: 'main.rs',
    runtimeBinary: fixed('/usr/bin/rustc'),
    versionCommand: () => ({ argv: ['/usr/bin/rustc', '--version'] }),
    versionPattern: /rustc (\d+\.\d+\.\d+)/,
    // The entry at its own path is the crate root: `mod x;` finds x.rs or x/mod.rs beside it.
    compileCommand: (layout) => ({
      argv: [
        '/usr/bin/rustc',
        '-O',
        '--edition',
        '2021',
        '-C',
        'linker=/usr/bin/gcc',
        '-o',
        `${BUILD_DIR}/main`,
        inSource(layout.entry),
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
    entryFile: 'Main.java',
    runtimeBinary: fixed(`${JAVA_HOME}/bin/javac`),
    versionCommand: () => ({ argv: [`${JAVA_HOME}/bin/java`, ...JVM_FLAGS, '-version'] }),
    versionPattern: /version "([^"]+)"/,
    compileCommand: (layout) => ({
      argv: [
        `${JAVA_HOME}/bin/javac`,
        ...JVM_FLAGS.map((flag) => `-J${flag}`),
        '-J-Xmx512m',
        '-encoding',
        'UTF-8',
        '-d',
        JAVA_CLASSES_DIR,
        ...filesWith(layout, ['.java']).map(inSource),
      ],
    }),
    // The main class (the entry's package plus its file name) is in an argument file build.ts wrote.
    runCommand: ({ memoryMb }) => ({
      argv: [
        `${JAVA_HOME}/bin/java`,
        ...JVM_FLAGS,
        `-Xmx${memoryMb}m`,
        '-Xss64m',
        '-cp',
        JAVA_CLASSES_DIR,
        `@${JAVA_MAIN_CLASS_FILE}`,
      ],
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
    entryFile: 'main.js',
    runtimeBinary: fixed('/usr/bin/node'),
    versionCommand: () => ({ argv: ['/usr/bin/node', '--version'] }),
    versionPattern: /v(\d+\.\d+\.\d+)/,
    // Bundled from the entry by esbuild on the host (build.ts): a syntax error is a compile error.
    runCommand: ({ memoryMb }) => ({
      argv: ['/usr/bin/node', `--max-old-space-size=${memoryMb}`, BUNDLE_FILE],
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
    entryFile: 'main.ts',
    runtimeBinary: fixed('/usr/bin/node'),
    versionCommand: () => ({ argv: ['/usr/bin/node', '--version'] }),
    versionPattern: /v(\d+\.\d+\.\d+)/,
    // Bundled by esbuild on the host in a child process that may die (no code runs; build.ts),
    // then run as JavaScript.
    runCommand: ({ memoryMb }) => ({
      argv: ['/usr/bin/node', `--max-old-space-size=${memoryMb}`, BUNDLE_FILE],
    }),
    runtimeOverheadMb: 64,
    outOfMemory: /heap out of memory|Reached heap limit/,
  },
};

/** The JVM in a small sandbox: one GC thread, no shared perf file, no container probing. */
const JVM_FLAGS = ['-XX:+UseSerialGC', '-XX:-UsePerfData', '-XX:TieredStopAtLevel=1', '-Xshare:auto'];

/**
 * `modules`: the submission is the module `solution`, built offline (GOPROXY=off: an import of
 * anything but the standard library and the submission's own packages is a compile error).
 * Preparing the standard library's cache needs no module.
 */
export function goEnv(cache = GO_CACHE_DIR, modules = true): Record<string, string> {
  return {
    GOCACHE: cache,
    GOPATH: '/work/gopath',
    GO111MODULE: modules ? 'on' : 'off',
    GOPROXY: 'off',
    GOSUMDB: 'off',
    GOTOOLCHAIN: 'local',
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
