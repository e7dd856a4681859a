#!/usr/bin/python3
"""Compiles policy.json (next to this file) into the seccomp BPF program bwrap installs with
--seccomp FD, written to stdout. Needs Debian's python3-seccomp (libseccomp's own bindings).

    /usr/bin/python3 compile-policy.py [policy.json] > filter.bpf
"""
import errno
import json
import os
import sys
import tempfile

import seccomp

OPS = {"eq": seccomp.EQ, "masked_eq": seccomp.MASKED_EQ}


def build(policy):
    default = seccomp.ERRNO(getattr(errno, policy["defaultErrno"]))
    f = seccomp.SyscallFilter(defaction=default)
    # Only the native architecture: an i386 or x32 syscall kills the process outright.
    f.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    for name in policy["allow"]:
        f.add_rule(seccomp.ALLOW, name)
    for rule in policy["conditional"]:
        op = OPS[rule["op"]]
        if op == seccomp.MASKED_EQ:
            arg = seccomp.Arg(rule["arg"], op, rule["mask"], rule["value"])
        else:
            arg = seccomp.Arg(rule["arg"], op, rule["value"])
        f.add_rule(seccomp.ALLOW, rule["syscall"], arg)
    for name, code in policy.get("errno", {}).items():
        if name.startswith("//"):
            continue
        f.add_rule(seccomp.ERRNO(getattr(errno, code)), name)
    return f


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "policy.json")
    with open(path) as handle:
        policy = json.load(handle)
    f = build(policy)
    # export_bpf wants a real file; the program goes to stdout.
    with tempfile.TemporaryFile() as out:
        f.export_bpf(out)
        out.seek(0)
        sys.stdout.buffer.write(out.read())


if __name__ == "__main__":
    main()
