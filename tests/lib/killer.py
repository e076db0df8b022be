#!/usr/bin/env python3
"""tests/lib/killer.py - the resume test's two halves.

usage: killer.py SEED KILLS          run `ninja -j4` in the current folder
                                     and SIGKILL it with everything it
                                     started, at random points (seeded),
                                     KILLS times (fewer if it finishes)
       killer.py --check-cache DIR   every JSON file in the cache parses, and
                                     every published build has its result
"""
import glob
import json
import os
import random
import signal
import subprocess
import sys


def kill_loop(seed, least):
    rng = random.Random(seed)
    kills = 0
    while kills < least:
        # ninja and everything it started, in a session of their own, so
        # that a kill is a crash of the whole build (as a power cut is)
        p = subprocess.Popen(["ninja", "-j4"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        try:
            p.wait(timeout=rng.uniform(0.05, 1.5))
            if p.returncode == 0:
                break  # finished before the kill: nothing left to interrupt
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            kills += 1
    print("kills:", kills)
    return 0 if kills >= least else 1


def check_cache(d):
    bad = []
    for f in glob.glob(d + "/**/*.json", recursive=True):
        try:
            json.load(open(f))
        except (ValueError, OSError) as e:
            bad.append((f, str(e)))
    for b in glob.glob(d + "/build/*/*"):
        if os.path.isdir(b) and os.path.basename(b) != b and not os.path.basename(b).startswith("tmp.") \
                and not os.path.exists(b + "/result.json"):
            bad.append((b, "a published build without its result"))
    print(len(bad), "bad entries", bad[:3])
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "--check-cache":
        sys.exit(check_cache(sys.argv[2]))
    sys.exit(kill_loop(int(sys.argv[1]), int(sys.argv[2])))
