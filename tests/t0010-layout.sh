#!/bin/sh
# t0010: the source tree stands in layers (doc/hacking.md): every program
# has its link list, src/lib includes nothing outside itself, and neither
# the folders' include graph nor the modules' (a .c and its .h) has a
# circle.
. "$(dirname "$0")/lib/lib.sh"

graph() {
	python3 - "$RETORT_ROOT/src" "$1" <<'PY'
import os, re, sys
src, what = sys.argv[1], sys.argv[2]
edges = set()
for d, _, files in os.walk(src):
    for f in files:
        if not re.search(r"\.(c|h|cu)$", f):
            continue
        p = os.path.join(d, f)
        for inc in re.findall(r'^\s*#\s*include\s*"([^"]+)"', open(p, errors="replace").read(), re.M):
            q = os.path.normpath(os.path.join(d, inc))
            if not os.path.exists(q) or not q.startswith(src + "/"):
                continue  # the runtime's copies beside pycall.c, system headers
            a, b = os.path.relpath(p, src), os.path.relpath(q, src)
            if what == "folders":
                a, b = a.split("/")[0], b.split("/")[0]
            else:
                a, b = os.path.splitext(a)[0], os.path.splitext(b)[0]
            if a != b:
                edges.add((a, b))
for a, b in sorted(edges):
    print(a, b)
PY
}

# cycle: the first circle in the "from to" lines on stdin, or nothing
cycle() {
	python3 -c '
import sys
g = {}
for line in sys.stdin:
    a, b = line.split()
    g.setdefault(a, []).append(b)
state = {}
def visit(n, path):
    state[n] = 1
    for m in g.get(n, []):
        if state.get(m) == 1:
            print(" -> ".join(path[path.index(m):] + [m])); sys.exit(0)
        if not state.get(m):
            visit(m, path + [m])
    state[n] = 2
for n in list(g):
    if not state.get(n):
        visit(n, [n])
'
}

test_expect_success 'every program in src/ has a link list, and each names only folders that exist' '
	for f in "$RETORT_ROOT"/src/*/deps-exe/*; do
		dir=$(dirname "$(dirname "$f")") &&
		test -f "$dir/$(basename "$f").c" || { echo "$f: no program $(basename "$f").c"; exit 1; }
		for item in $(sed -n "/^[a-z]/p" "$f"); do
			test -d "$RETORT_ROOT/src/$item" || { echo "$f: no folder src/$item"; exit 1; }
		done
	done
'

test_expect_success 'src/lib includes nothing outside src/lib' '
	graph folders >g && ! grep "^lib " g
'

test_expect_success 'the folders include one another without a circle' '
	graph folders >g && cycle <g >c && cat c && test ! -s c
'

test_expect_success 'the modules include one another without a circle' '
	graph modules >g && cycle <g >c && cat c && test ! -s c
'

test_expect_success 'the check finds a circle' '
	printf "gen/a gen/b\ngen/b gen/c\ngen/c gen/a\n" | cycle >c && grep -q "gen/a -> gen/b -> gen/c -> gen/a" c
'

test_done
