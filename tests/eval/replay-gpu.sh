#!/bin/sh
# tests/eval/replay-gpu.sh - an evaluation of replayed student answers, end
# to end, on a GPU host: the f32 variants of two held-out specs (the
# dataset's test split), rms_norm (16) and add_rmsnorm (6), two samples
# each, answered from tests/eval/replay/SPEC/ (fast: a block per row; slow:
# a thread per row; wrong: a term left out; broken: does not compile), the
# kind of each sample chosen by the variant's place in the list. Prints
# the metrics table.
#
# usage: tests/eval/replay-gpu.sh [DIR [N]]   (after ./configure && ninja here; DIR: the scratch
#                                              project, default a new temporary folder; N: only
#                                              the first N variants of each spec, default all)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$(mktemp -d "${TMPDIR:-/tmp}/retort-eval.XXXXXX")}
n=${2:-1000}
mkdir -p "$dir"
(cd "$root" && tar -cf - configure build.ninja.in models.yaml rules src scripts tasks) | tar -xf - -C "$dir"
cd "$dir"
kinds="fast fast fast slow wrong fast broken fast"
i=0
vs=
for spec in rms_norm add_rmsnorm; do
	for v in $("$root/out/bin/gen" --list --tasks "$spec.f32.*" | head -n "$n"); do
		for s in 0 1; do
			k=$(echo $kinds | cut -d' ' -f$(( (i + 3 * s) % 8 + 1 )))
			mkdir -p "tasks/replay/$v" && cp "$root/tests/eval/replay/$spec/$k.md" "tasks/replay/$v/s$s-r1.md"
		done
		i=$((i + 1))
		vs="$vs $v"
	done
done
./configure --with-tools="$root/out/bin" --eval=replay --tasks="$(echo $vs | tr ' ' ,)" --samples=2 --rounds=1
ninja
python3 - out/eval/replay/metrics.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
o = m["overall"]
print("\n%-26s %s" % ("metric", "overall (%d tasks, %d samples)" % (o["tasks"], o["samples"])))
rows = [("compile_rate", o["compile_rate"]), ("correct_rate", o["correct_rate"]),
        ("unverified_rate", o["unverified_rate"])]
rows += [("pass@" + k, v) for k, v in sorted(o["pass_at"].items())]
rows += [("fast_%s (%s)" % (k, f[5:]), v) for f in ("fast_first", "fast_best") for k, v in o[f].items()]
rows += [("geomean_speedup_first", o["geomean_speedup_first"]), ("geomean_speedup_samples", o["geomean_speedup_samples"])]
for name, v in rows:
    print("%-26s %s" % (name, "-" if v is None else "%.4f" % v))
print("\n%-26s %8s %8s %8s %8s" % ("task", "correct", "pass@1", "fast_1", "geomean"))
for name, t in sorted(m["tasks"].items()):
    g = t["geomean_speedup_samples"]
    print("%-26s %8.2f %8.2f %8.2f %8s" % (name, t["correct_rate"], t["pass_at"]["1"], t["fast_first"]["1"],
                                           "-" if g is None else "%.2f" % g))
PY
