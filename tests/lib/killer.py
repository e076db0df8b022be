#!/usr/bin/env python3
"""tests/lib/killer.py - the resume test's halves.

usage: killer.py SEED KILLS [TOOLS]  run `ninja -j4` in the current folder
                                     and, KILLS times (fewer if it
                                     finishes), wait for one of TOOLS
                                     (default: every retort tool) to be
                                     running, then kill it mid-run (seeded)
       killer.py --check-cache DIR   every JSON file in the cache parses, and
                                     every published build has its result
       killer.py --leftovers DIR     list the temporaries under DIR (a
                                     killed tool's, named for its pid); exit
                                     1 when there are some

Ninja starts each edge in a process group of its own, so a kill of
ninja's group alone leaves the tools running to the end. Each kill here
is one of three, in turn (seeded):

  power   SIGKILL to ninja's group and to every edge's group: a crash of
          the whole build, tools and what they started included
  ctrl-c  SIGINT to ninja's group, as a terminal's Ctrl-C: ninja sends it
          on to each running edge's group and waits for them
  oom     SIGKILL to one running tool alone, as the OOM killer would;
          ninja fails that edge, lets the others end and stops

It prints one line per kill (the kind and the tools it caught running)
and a summary: "kills: N", "interrupted: M" (the tools that were running
when their kill came, and died of it).
"""
import glob
import os
import random
import re
import signal
import subprocess
import sys
import time

TOOLS = ("query-llm", "compile", "verify", "bench", "record", "package", "prepare", "metrics", "report",
         "propose-check", "propose-accept", "gen", "jail")
# what a tool's killed run may leave: a temporary named for its pid
LEFTOVER = re.compile(r"\.[a-z]+-[0-9]+@")


def procs():
    """{pid: (ppid, pgid, name)} of every process"""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        name = s[s.index("(") + 1:s.rindex(")")]
        rest = s[s.rindex(")") + 2:].split()
        out[int(d)] = (int(rest[1]), int(rest[2]), name)
    return out


def descendants(root):
    """the processes under root: {pid: (pgid, name)}"""
    ps, found, todo = procs(), {}, [root]
    kids = {}
    for pid, (ppid, pgid, name) in ps.items():
        kids.setdefault(ppid, []).append(pid)
    while todo:
        for c in kids.get(todo.pop(), []):
            found[c] = (ps[c][1], ps[c][2])
            todo.append(c)
    return found


def running_tools(root, tools):
    return {pid: v for pid, v in descendants(root).items() if v[1] in tools}


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def one_kill(rng, p, kind, tools):
    """wait for a tool to run, kill as kind; the tools caught (pids), or None when ninja ended first"""
    deadline = time.monotonic() + rng.uniform(0.0, 1.0)
    caught = {}
    while p.poll() is None:
        caught = running_tools(p.pid, tools)
        if caught and time.monotonic() >= deadline:
            break
        time.sleep(0.005)
    if p.poll() is not None:
        return None
    if kind == "power":
        groups = {pgid for pgid, _ in descendants(p.pid).values()}
        signal_group(p.pid, signal.SIGKILL)
        for g in groups:
            signal_group(g, signal.SIGKILL)
    elif kind == "ctrl-c":
        signal_group(p.pid, signal.SIGINT)
    else:
        victim = rng.choice(sorted(caught))
        caught = {victim: caught[victim]}
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            pass
    p.wait()
    # what ninja's edges left running (a power cut's orphans are gone; a Ctrl-C's have been waited for)
    end = time.monotonic() + 30
    while any(alive(pid) for pid in caught) and time.monotonic() < end:
        time.sleep(0.01)
    return caught


def kill_loop(seed, least, tools):
    rng = random.Random(seed)
    kills = interrupted = 0
    kinds = ("power", "ctrl-c", "oom")
    while kills < least:
        # ninja in a session of its own: its group is the terminal's foreground group of a user's build
        p = subprocess.Popen(["ninja", "-j4"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        kind = kinds[kills % 3]
        caught = one_kill(rng, p, kind, tools)
        if caught is None:
            if p.returncode == 0:
                break  # finished before a tool ran: nothing left to interrupt
            continue
        kills += 1
        dead = [pid for pid in caught if not alive(pid)]
        interrupted += len(dead)
        print("kill %d: %s: %s" % (kills, kind, " ".join(sorted(caught[pid][1] for pid in dead))))
        sys.stdout.flush()
    print("kills:", kills)
    print("interrupted:", interrupted)
    return 0 if kills >= least else 1


def check_cache(d):
    import json
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


def leftovers(d):
    found = []
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            if LEFTOVER.search(n):
                found.append(os.path.join(root, n))
    for f in sorted(found):
        print(f)
    print("leftovers:", len(found))
    return 1 if found else 0


if __name__ == "__main__":
    if sys.argv[1] == "--check-cache":
        sys.exit(check_cache(sys.argv[2]))
    if sys.argv[1] == "--leftovers":
        sys.exit(leftovers(sys.argv[2]))
    sys.exit(kill_loop(int(sys.argv[1]), int(sys.argv[2]),
                       tuple(sys.argv[3].split(",")) if len(sys.argv) > 3 else TOOLS))
