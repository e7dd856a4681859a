/*
 * Supervisor of one native run (the `program` judge), executed INSIDE the OS wall as the
 * sandbox's PID 1 (bwrap --as-pid-1: no bwrap init runs inside):
 *
 *   native-supervisor <cpu_ms> <wall_ms> <output_bytes> <stderr_bytes> <address_space_bytes|0> -- argv...
 *
 * It first waits for one byte on its stdin (the go byte): a sandbox may be launched ahead of its
 * run (the warm pool) and nothing starts, no clock runs, until the run is handed its input. The
 * rest of stdin is the program's.
 * It starts argv in a process group of its own with the program's stdout and stderr on pipes,
 * and forwards them to its own stdout as frames (1 byte kind, 4 bytes big-endian length, data):
 * 'W' when it waits for the go byte, 'S' once the program was started, then 'O' | 'E' output, and exactly one final 'R', the report:
 *   status <exited|signaled> code <n> signal <n> cpu_ms <n> wall_ms <n> maxrss_kb <n> limit <none|cpu|wall|output>
 *
 * Why PID 1: the kernel delivers to a namespace's init only the signals it has a handler for when
 * they come from inside, so the program can neither stop nor kill it; it is not dumpable, so its
 * /proc files (mem, fd, syscall) and ptrace are closed to the program's uid; and no other process
 * of the run holds the frame channel (with a bwrap init, that init did: the red team injected a
 * report through its /proc/1/mem). As init it also reaps every orphan, and its exit ends them all.
 * The host still trusts none of the figures here for a verdict: CPU time and peak memory come from
 * the run's cgroup, wall time and kills from the host (native-run.ts). The report explains how the
 * program ended (its exit status or signal) and enforces the limits early.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

static void frame(char kind, const char *data, uint32_t len) {
  unsigned char head[5] = {(unsigned char)kind, (unsigned char)(len >> 24), (unsigned char)(len >> 16),
                           (unsigned char)(len >> 8), (unsigned char)len};
  write_all(1, head, 5);
  if (len > 0) write_all(1, data, len);
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* CPU time of the child process (all its threads), -1 once it is gone. */
static long long child_cpu_ms(pid_t pid) {
  clockid_t clock;
  struct timespec ts;
  if (clock_getcpuclockid(pid, &clock) != 0) return -1;
  if (clock_gettime(clock, &ts) != 0) return -1;
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Frames one read of the program's stdout (stream 0) or stderr (1) within the stream's cap.
   Returns 1 when stdout went past its cap: the run is over its output limit. Stderr past its
   cap is only cut (a diagnostic, not the answer). */
static int forward(int stream, const char *buf, ssize_t n, long long *sent, long long cap) {
  long long room = cap - *sent;
  if (stream == 1) {
    if (room > 0) frame('E', buf, (uint32_t)(n > room ? room : n));
    *sent += n;
    return 0;
  }
  if (n > room) {
    if (room > 0) frame('O', buf, (uint32_t)room);
    *sent = cap;
    return 1;
  }
  frame('O', buf, (uint32_t)n);
  *sent += n;
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 8 || strcmp(argv[6], "--") != 0) {
    static const char usage[] = "usage: native-supervisor cpu_ms wall_ms output_bytes stderr_bytes as_bytes -- argv...\n";
    write_all(2, usage, sizeof usage - 1);
    return 2;
  }
  long long cpu_ms = atoll(argv[1]);
  long long wall_ms = atoll(argv[2]);
  long long output_cap = atoll(argv[3]);
  long long stderr_cap = atoll(argv[4]);
  long long as_bytes = atoll(argv[5]);
  prctl(PR_SET_DUMPABLE, 0);
  signal(SIGPIPE, SIG_IGN);

  /* Ready: the host takes its CPU baseline now, then sends the go byte (nothing of the program
     has run yet). The go byte is read alone so that the program's stdin starts right after it. */
  frame('W', NULL, 0);
  char go;
  ssize_t got;
  do got = read(0, &go, 1);
  while (got < 0 && errno == EINTR);
  if (got != 1) return 4; /* discarded before its run */

  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC) || pipe2(exec_pipe, O_CLOEXEC)) return 3;
  long long started = now_ms();
  pid_t child = fork();
  if (child < 0) return 3;
  if (child == 0) {
    setpgid(0, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    /* Every other descriptor is closed at exec (O_CLOEXEC) or here. */
    for (int fd = 3; fd < 1024; fd++)
      if (fd != exec_pipe[1]) close(fd);
    struct rlimit cpu = {(rlim_t)(cpu_ms / 1000 + 1), (rlim_t)(cpu_ms / 1000 + 2)};
    setrlimit(RLIMIT_CPU, &cpu);
    if (as_bytes > 0) {
      struct rlimit as = {(rlim_t)as_bytes, (rlim_t)as_bytes};
      setrlimit(RLIMIT_AS, &as);
    }
    execv(argv[7], &argv[7]);
    int err = errno;
    write_all(exec_pipe[1], &err, sizeof err);
    _exit(127);
  }
  setpgid(child, child);
  /* From here on a run that ends without a report is the program's doing (native-run.ts). */
  frame('S', NULL, 0);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(exec_pipe[1]);
  int exec_errno = 0;
  if (read(exec_pipe[0], &exec_errno, sizeof exec_errno) == (ssize_t)sizeof exec_errno) {
    char message[256];
    int n = snprintf(message, sizeof message, "cannot execute %s: %s\n", argv[7], strerror(exec_errno));
    frame('E', message, (uint32_t)n);
  }
  close(exec_pipe[0]);

  const char *limit = "none";
  long long out_bytes = 0, err_bytes = 0, max_cpu = 0;
  int open_pipes = 2, status = 0, reaped = 0;
  struct rusage usage;
  memset(&usage, 0, sizeof usage);
  /* The child's exit wakes the loop at once (a pidfd is readable then); the 5 ms timeout is
     for the limits. Without pidfds (kernels before 5.3) the exit is seen within 5 ms. */
  int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
  struct pollfd fds[3] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}, {pidfd, POLLIN, 0}};
  char buf[65536];
  while (!reaped) {
    int ready = poll(fds, 3, 5);
    if (ready < 0 && errno != EINTR) break;
    if (open_pipes > 0) {
      for (int i = 0; i < 2; i++) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t n = read(fds[i].fd, buf, sizeof buf);
        if (n <= 0) {
          close(fds[i].fd);
          fds[i].fd = -1;
          open_pipes--;
          continue;
        }
        if (forward(i, buf, n, i == 0 ? &out_bytes : &err_bytes, i == 0 ? output_cap : stderr_cap)) {
          limit = "output";
          kill(-child, SIGKILL);
          kill(child, SIGKILL);
        }
      }
    }
    /* As init, every orphan of the run is ours to reap; the program's own status is kept. */
    pid_t done;
    int any_status;
    struct rusage any_usage;
    while ((done = wait4(-1, &any_status, WNOHANG, &any_usage)) > 0) {
      if (done == child) {
        status = any_status;
        usage = any_usage;
        reaped = 1;
      }
    }
    if (reaped) break;
    long long cpu = child_cpu_ms(child);
    if (cpu > max_cpu) max_cpu = cpu;
    if (strcmp(limit, "none") == 0) {
      if (max_cpu > cpu_ms) limit = "cpu";
      else if (now_ms() - started > wall_ms) limit = "wall";
      if (strcmp(limit, "none") != 0) {
        kill(-child, SIGKILL);
        kill(child, SIGKILL);
      }
    }
  }
  if (!reaped) wait4(child, &status, 0, &usage);
  long long wall = now_ms() - started;
  /* Output still buffered in the pipes after the child exited. */
  for (int i = 0; i < 2; i++) {
    if (fds[i].fd < 0) continue;
    ssize_t n;
    fcntl(fds[i].fd, F_SETFL, O_NONBLOCK);
    while ((n = read(fds[i].fd, buf, sizeof buf)) > 0) {
      if (forward(i, buf, n, i == 0 ? &out_bytes : &err_bytes, i == 0 ? output_cap : stderr_cap) &&
          strcmp(limit, "none") == 0)
        limit = "output";
    }
  }
  /* Whatever the program left behind dies with the run (as init, kill(-1) reaches every other
     process of the namespace). */
  kill(-child, SIGKILL);
  kill(-1, SIGKILL);
  long long used = (long long)usage.ru_utime.tv_sec * 1000 + usage.ru_utime.tv_usec / 1000 +
                   (long long)usage.ru_stime.tv_sec * 1000 + usage.ru_stime.tv_usec / 1000;
  if (used > max_cpu) max_cpu = used;
  if (strcmp(limit, "none") == 0 && max_cpu > cpu_ms) limit = "cpu";
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU && strcmp(limit, "none") == 0) limit = "cpu";
  char report[512];
  int n = snprintf(report, sizeof report,
                   "status %s code %d signal %d cpu_ms %lld wall_ms %lld maxrss_kb %ld limit %s",
                   WIFSIGNALED(status) ? "signaled" : "exited", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                   WIFSIGNALED(status) ? WTERMSIG(status) : 0, max_cpu, wall, usage.ru_maxrss, limit);
  frame('R', report, (uint32_t)n);
  return 0;
}
