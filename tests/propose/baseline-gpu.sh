#!/bin/sh
# tests/propose/baseline-gpu.sh - proposals' baselines checked against
# their references on a GPU host, end to end: a scratch project with one
# curriculum family of four problems, answered by the loopback mock
# teacher (tests/lib/mock_llm.py) with planted proposals (tests/lib/propose-plant):
# two whose CUDA baselines compute their problems (baseline:40,
# baseline:42), one whose baseline is off by 0.5 (wrongbaseline:41), and
# one whose reference crashes at its bench size (benchcrash:43).
# One ninja proposes, checks, runs each accepted proposal's first-variant
# oracle on the GPU (verify --baseline), writes out/propose/baselines.json,
# and regenerates without the ones held back. Prints a table and exits 1
# unless exactly those four were checked, 40 and 42 agreed, 41 disagreed,
# 43 was refused, and only 40 and 42 have samples.
#
# usage: tests/propose/baseline-gpu.sh [DIR]   (after ninja here: out/bin; DIR: the scratch
#                                               project, default a new temporary folder)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$(mktemp -d "${TMPDIR:-/tmp}/retort-propose.XXXXXX")}
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac
# a folder of its own: empty, or made by an earlier run of this script (its mark inside)
if test -n "$(ls -A "$dir" 2>/dev/null)" && ! test -f "$dir/.baseline-gpu"; then
	echo "tests/propose/baseline-gpu.sh: '$dir' is not empty and not this script's: name another" >&2
	exit 2
fi
rm -rf "$dir" && mkdir -p "$dir/tasks/prompts" "$dir/answers" && : >"$dir/.baseline-gpu"
(cd "$root" && tar -cf - configure build.ninja.in models.yaml rules src scripts doc/specs.md) | tar -xf - -C "$dir"
cp "$root"/tasks/prompts/*.md "$dir/tasks/prompts/" && cp "$root/tasks/axpy.yaml" "$dir/tasks/"
cd "$dir"
printf 'batch: 4\nfamilies:\n  - name: gpu\n    covers: Elementwise maps of a vector.\n    count: 4\n    exemplars: [axpy]\n' \
	>tasks/curriculum.yaml
"$root/tests/lib/propose-plant" answers/gpu-b0-r1.md baseline:40 wrongbaseline:41 baseline:42 benchcrash:43
python3 "$root/tests/lib/mock_llm.py" "$dir/port" --propose-dir "$dir/answers" &
mock=$!
trap 'kill $mock 2>/dev/null' EXIT
i=0; while test ! -s port && test $i -lt 100; do sleep 0.05; i=$((i + 1)); done
export OPENAI_API_KEY=sk-oai-FAKE-KEY-0123456789 OPENAI_BASE_URL=http://127.0.0.1:$(cat port)/v1
./configure --with-tools="$root/out/bin" --cache-dir="$dir/cache" --provider=openai --model=served-model \
	--propose=tasks/curriculum.yaml --rounds=1 --tasks='p4*'
t0=$(date +%s)
ninja
echo "ninja: $(( $(date +%s) - t0 )) s"
python3 - <<'PY'
import json, re
b = json.load(open("out/propose/baselines.json"))
graph = open("build.ninja").read()
print("\n%-14s %-10s %-10s %-8s %s" % ("spec", "status", "verdict", "samples", "why"))
bad = sorted(s["spec"][:3] for s in b["specs"]) != ["p40", "p41", "p42", "p43"]
if bad:
    print("NOT the four proposals planted:", [s["spec"] for s in b["specs"]])
for s in b["specs"]:
    sampled = bool(re.search(r"^build out/v/%s/s0/r1/response.json" % re.escape(s["variant"]), graph, re.M))
    oracle = json.load(open("out/v/%s/oracle.json" % s["variant"]))
    print("%-14s %-10s %-10s %-8s %s" % (s["spec"], s["status"], s["verdict"], "yes" if sampled else "no",
                                         " ".join((s.get("why") or "").split())[-90:]))
    want = {"p41": "disagreed", "p43": "refused"}.get(s["spec"][:3], "agreed")
    bad |= s["status"] != want or sampled != (want == "agreed")
    print("    oracle: gpu %s, %.2f s" % ((oracle.get("gpu") or {}).get("name", "?"), oracle.get("seconds", 0)))
print("families:", json.dumps(b["families"], sort_keys=True))
print("as expected" if not bad else "NOT as expected")
raise SystemExit(1 if bad else 0)
PY
