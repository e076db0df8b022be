#!/bin/sh
# bench/propose.sh - problems from the teacher at scale: a curriculum
# of PROBLEMS problems (FAMILIES families, batches of 20, 2 rounds) asked
# of the mock teacher (tests/lib/mock_propose.py), which plants invalid
# proposals (fixed in the repair round), behavioural twins and text
# near-duplicates; everything through one `ninja` (configure --propose,
# --tasks matching nothing, so that the kernel graph over the accepted
# specs is generated but not built).
#
# Prints: wall time and peak RSS of that build; propose-check's own CPU per
# proposal (its check_cpu_seconds: the reference builds and runs, its
# children, left out) and propose-accept's; dedup precision against the
# mock's ground truth (every planted twin and near-duplicate caught, no
# honest proposal merged); a no-op ninja; gen time over the tasks and the
# accepted specs with the whole kernel graph selected, and its
# build.ninja size. Not a timed test: run it by hand after `ninja`
# built out/bin.
#
# usage: bench/propose.sh [PROBLEMS [FAMILIES]]    (default 10000 40)
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-10000} fams=${2:-40}
RETORT_ROOT=$root RETORT_BIN=$root/out/bin
. "$root/tests/lib/lib.sh" # scratch_project, start_mock, and $T removed at exit
set -e
scratch_project "$T/p"
cd "$T/p"
mkdir -p doc && cp "$root/doc/specs.md" doc/
spec a alpha
{ echo "batch: 20"; echo "rounds: 2"; echo "families:"
  i=0; while test $i -lt "$fams"; do
	c=$(( n / fams + (i < n % fams ? 1 : 0) ))
	printf '  - name: f%d\n    covers: Elementwise maps of a vector, part %d.\n    count: %d\n    exemplars: [a]\n' $i $i $c
	i=$((i + 1)); done; } > tasks/curriculum.yaml
PLANT=invalid=0.05,twin=0.03,near=0.03,wrongref=0.02,badref=0.01
start_mock --propose-plant $PLANT
rconfigure --provider=openai --model=served-model --propose=tasks/curriculum.yaml --tasks=none-of-them \
	--llm-jobs=16 >/dev/null
j=$(getconf _NPROCESSORS_ONLN)
/usr/bin/time -f '%e %M' -o build.time ninja -j "$j" >build.log 2>&1 || { tail build.log; exit 1; }
/usr/bin/time -f '%e %M' -o noop.time ninja >noop.log 2>&1
/usr/bin/time -f '%e %M' -o accept.time sh -c 'ls out/propose/*/b*/r*/check.json out/propose/*/b*/agree.json | sort -V > checks.rsp &&
	"$0"/propose-accept -o acc.json --specs specs.again --corpus out/propose/corpus.json @checks.rsp >/dev/null' "$RETORT_BIN"
/usr/bin/time -f '%e %M' -o gen.time "$RETORT_BIN/gen" --ninja graph.ninja --propose tasks/curriculum.yaml --tasks proposed \
	--rounds 3 --models models.yaml --provider openai --model served-model >gen.out
python3 - "$root/tests/lib" "$PLANT" <<'PY'
import glob, json, re, sys
sys.path.insert(0, sys.argv[1])
import mock_propose as mp
for kv in sys.argv[2].split(","):
    k, v = kv.split("=")
    mp.PLANT[k] = float(v)
checks = [json.load(open(f)) for f in glob.glob("out/propose/*/b*/r*/check.json")]
props = sum(len(c["proposals"]) for c in checks)
selfcpu = sum(c.get("check_cpu_seconds", 0) for c in checks)
refcpu = sum(p.get("cpu_seconds", 0) for c in checks for p in c["proposals"])
rep = json.load(open("out/propose/report.json"))
acc = json.load(open("out/propose/accepted.json"))["accepted"]
g = lambda i: int(re.match(r"p(\d+)_", i).group(1))
accepted = {g(a["id"]) for a in acc if re.match(r"p\d+_", a["id"])}
# a planted twin or near-duplicate of problem x - 1 is to be caught when x - 1 was accepted (a copy
# of one rejected itself, a twin of a near-duplicate, say, is a new problem)
planted = {x for x in range(sum(f["proposed"] for f in rep["families"].values()))
           if mp.kind(x) in ("twin", "near") and x - 1 in accepted}
others = {x for x in range(sum(f["proposed"] for f in rep["families"].values()))
          if mp.kind(x) in ("twin", "near")} - planted
flagged = {g(d["id"]) for d in rep["duplicates"]}
# held back because its references disagreed (a planted duplicate can be that too): not let through either
held = {g(d["id"]) for d in rep.get("references_disagree", []) if re.match(r"p\d+_", d["id"])}
caught, false = planted & flagged, flagged - planted - others
tot = {k: sum(f[k] for f in rep["families"].values()) for k in ("proposed", "passed", "invalid", "duplicates",
       "near_duplicates", "corpus_twins", "accepted")}
b, rss = open("build.time").read().split()
nb, nrss = open("noop.time").read().split()
a, arss = open("accept.time").read().split()
gt, grss = open("gen.time").read().split()
print("| figure | value |\n|---|---|")
print("| problems asked | %d (%d requests with repairs, %d proposals checked) |" % (tot["proposed"], len(checks), props))
print("| accepted / invalid / behavioural dups / text near-dups / corpus twins | %d / %d / %d / %d / %d |" % (
      tot["accepted"], tot["invalid"], tot["duplicates"], tot["near_duplicates"], tot["corpus_twins"]))
print("| build: wall, peak RSS | %s s, %.0f MiB |" % (b, int(rss) / 1024))
print("| propose-check CPU per proposal, reference builds and runs left out | %.1f ms |" % (1000 * selfcpu / max(props, 1)))
print("| reference CPU per proposal (verify --expected's runs) | %.1f ms |" % (1000 * refcpu / max(props, 1)))
print("| propose-accept over every check: wall, peak RSS | %s s, %.0f MiB |" % (a, int(arss) / 1024))
print("| planted duplicates caught | %d of %d, %d more held back by their references (and %d copies of rejected "
      "proposals: %d let through) |" % (len(caught), len(planted), len(planted & held - flagged), len(others),
                                        len(others - flagged - held)))
missed = sorted(planted - flagged - held)
if missed:
    print("| planted duplicates let through (kind, of which problem) | %s |" % ", ".join(
          "p%d (%s of p%d)" % (x, mp.kind(x), x - 1) for x in missed))
print("| false merges (honest proposals called duplicates) | %d |" % len(false))
agree = [p for f in glob.glob("out/propose/*/b*/agree.json") for p in json.load(open(f))["problems"]]
byref = {}
for p in agree:
    m = re.match(r"p(\d+)_", p["id"])
    k = mp.refkind(int(m.group(1))) if m else "right"
    byref.setdefault(k, []).append(p.get("agreement") or p["status"])
cnt = lambda k, v: sum(1 for x in byref.get(k, []) if x == v)
print("| independent references: proposals compared / 2-of-2 / 2-of-3 / rejected | %d / %d / %d / %d |" % (
      len(agree), sum(p.get("agreement") == "2/2" for p in agree), sum(p.get("agreement") == "2/3" for p in agree),
      sum(p["status"] == "rejected" for p in agree)))
print("| planted wrong second references settled by a third (2/3) | %d of %d |" % (cnt("wrongref", "2/3"),
      len(byref.get("wrongref", []))))
print("| planted problems whose references all disagree, rejected | %d of %d |" % (cnt("badref", "rejected"),
      len(byref.get("badref", []))))
print("| honest problems not agreed 2/2 | %d of %d |" % (len(byref.get("right", [])) - cnt("right", "2/2"),
      len(byref.get("right", []))))
log = [l.split("\t") for l in open(glob.glob("out/.ninja_log") and "out/.ninja_log" or ".ninja_log") if not l.startswith("#")]
aw = sum(int(e) - int(s) for s, e, _, path, *_ in log if path.endswith("agree.json")) / 1000.0
print("| agreement edges (both references built and run): wall per proposal compared | %.0f ms |" % (
      1000 * aw / max(len(agree), 1)))
print("| no-op ninja: wall, peak RSS | %s s, %.0f MiB |" % (nb, int(nrss) / 1024))
print("| gen over the accepted specs, kernel graph selected: wall, peak RSS | %s s, %.0f MiB |" % (gt, int(grss) / 1024))
PY
echo "| build.ninja with the kernel graph | $(wc -c <graph.ninja) bytes, $(grep -c '^build ' graph.ninja) edges: $(head -c 200 gen.out | head -n 1) |"
grep -q "no work to do" noop.log || echo "the second ninja was no no-op: $(tail -n 2 noop.log)"
