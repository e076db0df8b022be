"""tests/lib/harnesses.py - which GPU each running harness sees (t0810).

usage: harnesses.py ROOT            one line: the CUDA_VISIBLE_DEVICES of each
                                    harness process that descends from
                                    process ROOT, sorted, space-separated
       harnesses.py ROOT STOPFILE   such a line every 20 ms until STOPFILE
                                    exists

Only ROOT's descendants count: other tests' harnesses may run beside.
"""
import os
import sys
import time


def parent(pid):
    return open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()[1]


def descends(pid, root):
    while pid not in ("0", "1", root):
        pid = parent(pid)
    return pid == root


def snapshot(root):
    devices = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
            if not argv[0].endswith(b"/harness") or not descends(pid, root):
                continue
            env = open("/proc/%s/environ" % pid, "rb").read().split(b"\0")
        except (OSError, IndexError):
            continue  # gone meanwhile
        if env == [b""]:
            continue  # a zombie
        cvd = [e.split(b"=", 1)[1].decode() for e in env if e.startswith(b"CUDA_VISIBLE_DEVICES=")]
        devices.append(cvd[0] if cvd else "unset")
    return " ".join(sorted(devices))


if __name__ == "__main__":
    if len(sys.argv) == 2:
        print(snapshot(sys.argv[1]))
    else:
        while not os.path.exists(sys.argv[2]):
            print(snapshot(sys.argv[1]), flush=True)
            time.sleep(0.02)
