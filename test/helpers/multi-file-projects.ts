/** Issue 40's projects: a program of several files with folders per language, and imports that leave the submission. */
export type Files = { path: string; content: string }[];

/** Per language, a project of several files with folders that adds two numbers. */
export const PROJECTS: Record<string, Files> = {
  python: [
    {
      path: 'main.py',
      content: 'from lib.adder import add\na, b = map(int, input().split())\nprint(add(a, b))\n',
    },
    { path: 'lib/__init__.py', content: '' },
    {
      path: 'lib/adder.py',
      content: 'from lib.zero import ZERO\n\ndef add(a, b):\n    return a + b + ZERO\n',
    },
    { path: 'lib/zero.py', content: 'ZERO = 0\n' },
  ],
  c: [
    {
      path: 'main.c',
      content:
        '#include <stdio.h>\n#include "add.h"\nint main(void){long a,b;if(scanf("%ld %ld",&a,&b)!=2)return 1;printf("%ld\\n",add(a,b));return 0;}\n',
    },
    { path: 'lib/add.h', content: 'long add(long a, long b);\n' },
    { path: 'lib/add.c', content: '#include "add.h"\nlong add(long a, long b) { return a + b; }\n' },
  ],
  cpp: [
    {
      path: 'main.cpp',
      content:
        '#include <iostream>\n#include "lib/add.h"\nint main(){long a,b;std::cin>>a>>b;std::cout<<add(a,b)<<"\\n";}\n',
    },
    { path: 'lib/add.h', content: '#pragma once\nlong add(long a, long b);\n' },
    {
      path: 'lib/add.cpp',
      content: '#include "add.h"\n#include "zero.hh"\nlong add(long a, long b) { return a + b + zero(); }\n',
    },
    { path: 'lib/zero.hh', content: '#pragma once\nlong zero();\n' },
    { path: 'lib/zero.cc', content: '#include "zero.hh"\nlong zero() { return 0; }\n' },
  ],
  go: [
    {
      path: 'main.go',
      content:
        'package main\n\nimport (\n\t"fmt"\n\n\t"solution/lib"\n)\n\nfunc main() {\n\tvar a, b int64\n\tfmt.Scan(&a, &b)\n\tfmt.Println(lib.Add(a, b) + zero())\n}\n',
    },
    { path: 'zero.go', content: 'package main\n\nfunc zero() int64 { return 0 }\n' },
    {
      path: 'lib/add.go',
      content: 'package lib\n\n// Add adds.\nfunc Add(a, b int64) int64 { return a + b }\n',
    },
  ],
  rust: [
    {
      path: 'main.rs',
      content:
        'mod add;\nmod util;\nuse std::io::Read;\nfn main(){let mut s=String::new();std::io::stdin().read_to_string(&mut s).unwrap();let v:Vec<i64>=s.split_whitespace().map(|x|x.parse().unwrap()).collect();println!("{}",add::add(v[0],v[1])+util::zero());}\n',
    },
    { path: 'add.rs', content: 'pub fn add(a: i64, b: i64) -> i64 { a + b }\n' },
    { path: 'util/mod.rs', content: 'pub fn zero() -> i64 { 0 }\n' },
  ],
  java: [
    {
      path: 'app/Main.java',
      content:
        'package app;\n\nimport app.math.Adder;\nimport java.util.Scanner;\n\npublic class Main { public static void main(String[] x) { Scanner in = new Scanner(System.in); long a = in.nextLong(), b = in.nextLong(); System.out.println(Adder.add(a, b)); } }\n',
    },
    {
      path: 'app/math/Adder.java',
      content:
        'package app.math;\n\npublic class Adder { public static long add(long a, long b) { return a + b; } }\n',
    },
  ],
  javascript: [
    {
      path: 'main.js',
      content:
        "const { add } = require('./lib/add');\nconst [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(add(a, b));\n",
    },
    {
      path: 'lib/add.js',
      content: "const { zero } = require('../util');\nexports.add = (a, b) => a + b + zero;\n",
    },
    { path: 'util/index.js', content: 'module.exports = { zero: 0 };\n' },
  ],
  typescript: [
    {
      path: 'main.ts',
      content:
        "import { readFileSync } from 'node:fs';\nimport { add } from './lib/add';\nconst [a, b]: number[] = readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(add(a, b));\n",
    },
    {
      path: 'lib/add.ts',
      content:
        "import { ZERO } from '../util/zero';\nexport function add(a: number, b: number): number {\n  return a + b + ZERO;\n}\n",
    },
    { path: 'util/zero.ts', content: 'export const ZERO: number = 0;\n' },
  ],
};

/** Imports that reach outside the submission: each is the submission's compile error. */
export const OUTSIDE_IMPORTS: Record<string, Files> = {
  'javascript host file': [
    { path: 'main.js', content: "const s = require('../../../../../../etc/hostname');\nconsole.log(3);\n" },
  ],
  'javascript absolute path': [
    { path: 'main.js', content: "const s = require('/etc/hostname');\nconsole.log(3);\n" },
  ],
  'javascript node_modules package': [
    { path: 'main.js', content: "const { z } = require('zod');\nconsole.log(3);\n" },
  ],
  'typescript host file': [{ path: 'src/main.ts', content: "import '../../src/config';\nconsole.log(3);\n" }],
  'typescript absolute path': [
    { path: 'main.ts', content: "import x from '/etc/hostname';\nconsole.log(3, x);\n" },
  ],
  'typescript node_modules package': [
    { path: 'main.ts', content: "import { z } from 'zod';\nconsole.log(3, typeof z);\n" },
  ],
};
