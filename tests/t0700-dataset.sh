#!/bin/sh
# t0700: rounds, records and the dataset — the repair loop over replayed
# answers, the record's conversation, splits, deterministic archives,
# ninja check, a Hugging Face datasets consumer, the HTML report
. "$(dirname "$0")/lib/lib.sh"
cpu_only "it expects unverified records and byte-identical archives"

export SOURCE_DATE_EPOCH=1700000000
scratch_project "$T/p"
cd "$T/p" || exit 1
spec a alpha
spec b beta
# alpha: a compile error, then a fix
cat > tasks/replay/alpha/s0-r1.md <<'EOS'
I scale each element in its own thread.

```cuda
__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i] }
extern "C" void alpha_scale(const float* x, float* y, int n) { k<<<(n + 255) / 256, 256>>>(x, y, n); }
```
EOS
cat > tasks/replay/alpha/s0-r2.md <<'EOS'
The statement lacked its semicolon; fixed.

```cuda
__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }
extern "C" void alpha_scale(const float* x, float* y, int n) { k<<<(n + 255) / 256, 256>>>(x, y, n); }
```
EOS
# beta: no code, then a screen violation, then clean
cat > tasks/replay/beta/s0-r1.md <<'EOS'
I would use one thread per element.
EOS
cat > tasks/replay/beta/s0-r2.md <<'EOS'
```cuda
#include <cstdlib>
__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }
extern "C" void beta_scale(const float* x, float* y, int n) { if (getenv("FAST")) return; k<<<(n + 255) / 256, 256>>>(x, y, n); }
```
EOS
cat > tasks/replay/beta/s0-r3.md <<'EOS'
Without the environment lookup:

```cuda
__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }
extern "C" void beta_scale(const float* x, float* y, int n) { k<<<(n + 255) / 256, 256>>>(x, y, n); }
```
EOS

test_expect_success 'the whole graph builds a dataset' '
	cd p && rconfigure --all --rounds=3 >/dev/null && { ninja >n.log 2>&1 || { tail -n 20 n.log; false; }; } &&
	test -s out/dataset/SHA256SUMS && ls out/dataset/retort-dataset-00000.tar.gz
'
test_expect_success 'no GPU: the expected outputs without the bench sizes, which only a GPU'"'"'s verify reads' '
	cd p && grep -q "^expected_flags = --no-bench\\$ $" build.ninja &&
	test "$(field out/v/alpha/expected.json "\",\".join(sorted({r[\"set\"] for r in d[\"runs\"]}))")" = verify &&
	test "$(field out/v/alpha/expected.json "d[\"bench_sizes\"]")" = False &&
	"$RETORT_BIN/verify" --expected --cache-dir "$T/cache" -o ../full/expected.json out/v/alpha/task.json \
		out/v/alpha/reference && field ../full/expected.json "d[\"runs\"][-1][\"set\"]" | grep -qx bench &&
	test "$(stat -c %s out/v/alpha/expected.bin)" -lt "$(stat -c %s ../full/expected.bin)" &&
	mkdir -p ../r && echo "{\"status\": \"ok\"}" >../r/compile.json && : >../r/cand.so &&
	RETORT_FAKE_GPU=1 expect_fail 2 "expected.json was made without the bench sizes.*run ./configure on this GPU host" \
		"$RETORT_BIN/verify" --lock-dir ../gpu -o ../r/verify.json out/v/alpha/task.json ../r/compile.json \
		out/v/alpha/harness out/v/alpha/expected.json
'
test_expect_success 'a compile error goes back to the teacher as feedback' '
	cd p && test "$(field out/v/alpha/s0/r1/compile.json "d[\"status\"]")" = compile_error &&
	grep -q "nvcc failed to compile" out/v/alpha/s0/r2/response.json &&
	grep -q "expected a \\\\\"\\;\\\\\"" out/v/alpha/s0/r2/response.json &&
	test "$(field out/v/alpha/s0/r2/compile.json "d[\"status\"]")" = ok
'
test_expect_success 'no code and screen violations go back too; a finished sample stops asking' '
	cd p && test "$(field out/v/beta/s0/r1/compile.json "d[\"status\"]")" = no_code &&
	grep -q "no usable CUDA source" out/v/beta/s0/r2/response.json &&
	test "$(field out/v/beta/s0/r2/compile.json "d[\"status\"]")" = screen_failed &&
	grep -q "environment (getenv)" out/v/beta/s0/r3/response.json &&
	test "$(field out/v/alpha/s0/r3/response.json "d[\"status\"]")" = done
'
test_expect_success 'the record holds the conversation in chat form' '
	cd p && r=out/v/alpha/s0/record.json &&
	test "$(field $r "\" \".join(m[\"role\"] for m in d[\"messages\"])")" = "system user assistant user assistant" &&
	test "$(field $r "d[\"outcome\"]")" = unverified && test "$(field $r "d[\"final_round\"]")" = 2 &&
	test "$(field $r "\" \".join(\"%d%s\" % (m[\"round\"], \"T\" if m[\"training\"] else \"\") for m in d[\"messages\"])")" = "0 1 1 2 2T" &&
	field $r "d[\"final_kernel\"]" | grep -q "y\[i\] = 2 \* x\[i\];" &&
	test "$(field $r "\" \".join(x[\"compile\"] for x in d[\"rounds\"])")" = "compile_error ok" &&
	test "$(field $r "sorted(d.keys())")" = "$(field out/v/beta/s0/record.json "sorted(d.keys())")"
'
test_expect_success 'each round keeps the feedback it was sent, and the diagnostics it came from' '
	cd p && r=out/v/alpha/s0/record.json &&
	field $r "d[\"rounds\"][0][\"feedback\"]" | grep -q "nvcc failed to compile" &&
	field $r "d[\"rounds\"][0][\"diagnostics\"][\"compile\"]" | grep -q "expected a \"\;\"" &&
	test "$(field $r "d[\"rounds\"][0][\"feedback\"] in d[\"messages\"][3][\"content\"]")" = True &&
	test "$(field $r "repr(d[\"rounds\"][1][\"feedback\"])")" = "'"''"'" &&
	b=out/v/beta/s0/record.json &&
	field $b "d[\"rounds\"][0][\"feedback\"]" | grep -q "^Your answer had no usable CUDA source: the answer has no fenced code block\.$" &&
	test "$(field $b "d[\"rounds\"][1][\"diagnostics\"][\"violations\"][0][\"rule\"]")" = environment
'
test_expect_success 'a last round keeps the feedback it would have been sent; the screen list is capped' '
	cd p && rm -rf last && mkdir -p last/r1 last/r2 && cp out/v/beta/s0/r1/*.json last/r1/ && cp out/v/beta/s0/r2/*.json last/r2/ &&
	"$RETORT_BIN/record" -o last/rec.json out/v/beta/task.json last/r*/*.json &&
	field last/rec.json "d[\"rounds\"][1][\"feedback\"]" | grep -q "environment (getenv)" &&
	python3 -c "import json; p = \"last/r2/compile.json\"; d = json.load(open(p)); d[\"violations\"] = d[\"violations\"][:1] * 14; json.dump(d, open(p, \"w\"))" &&
	"$RETORT_BIN/record" -o last/rec.json out/v/beta/task.json last/r*/*.json &&
	test "$(field last/rec.json "d[\"rounds\"][1][\"feedback\"].count(\"- environment\")")" = 10 &&
	field last/rec.json "d[\"rounds\"][1][\"feedback\"]" | grep -q "^- and 4 more$" &&
	test "$(field last/rec.json "len(d[\"rounds\"][1][\"diagnostics\"][\"violations\"])")" = 14
'
test_expect_success 'splits: no GPU, so unverified and trajectories; the manifest counts them' '
	cd p && mkdir x && tar xzf out/dataset/retort-dataset-00000.tar.gz -C x &&
	ls x/data && test -f x/README.md && test -f x/manifest.json &&
	test "$(field x/manifest.json "d[\"counts\"][\"train\"]")" = 0 &&
	test "$(($(field x/manifest.json "d[\"counts\"][\"unverified\"]") + $(field x/manifest.json "d[\"counts\"][\"test\"]")))" = 2 &&
	test "$(($(field x/manifest.json "d[\"counts\"][\"trajectories\"]") + $(field x/manifest.json "d[\"counts\"][\"test\"]")))" = 2
'
test_expect_success 'records and the card say where each task came from and its reference'"'"'s language' '
	cd p && cat x/data/*.jsonl | python3 -c "import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
assert rows and all(r[\"origin\"] == \"hand-written\" and r[\"reference_language\"] == \"c\" and r[\"scaled\"] is None for r in rows), rows" &&
	grep -q "^| config | split | hand-written | kernelbench | teacher | teacher-reference | other |" x/README.md &&
	test "$(field x/manifest.json "sum(v[\"rows_by_origin\"][\"hand-written\"] for v in d[\"lengths\"][\"default\"].values())")" -ge 2
'
test_expect_success 'archives are deterministic: sorted members, fixed owner and time' '
	cd p && tar tzvf out/dataset/retort-dataset-00000.tar.gz > members &&
	cat members && ! grep -v " 0/0 " members && grep -c "2023-11-14" members &&
	test "$(sed -n 1p members | awk "{print \$NF}")" = README.md &&
	cp out/dataset/SHA256SUMS sums && rm -rf out/dataset && ninja dataset >/dev/null && cmp sums out/dataset/SHA256SUMS
'
test_expect_success LONG 'a fresh build from the same cache gives the same bytes' '
	cd "$T" && cp -R p q && cd q && rm -rf out && ninja >/dev/null 2>&1 && cmp ../p/sums out/dataset/SHA256SUMS
'
test_expect_success LONG 'ninja check rebuilds from the cache and finds no difference' '
	cd p && { ninja check >c.log 2>&1; r=$?; cat c.log; test $r = 0; } && grep -q "the same" c.log
'
test_expect_success LONG 'ninja check notices a dataset that differs' '
	cd p && sed -i "s/\"outcome\": \"unverified\"/\"outcome\": \"tampered\"/" out/v/alpha/s0/record.json &&
	ninja dataset >/dev/null && ! ninja check >c.log 2>&1 && grep -q "differ" c.log
'
test_expect_success 'record refuses round files with a field of the wrong type or missing, another round'"'"'s or task'"'"'s, a role not a string (exit 2, file named)' '
	cd p && r=out/v/alpha/s0 &&
	for bad in "response messages \"hi\"" "response status 3" "verify verdict 1" "bench speedup \"fast\"" \
		"compile violations {}" "response answer null" "response round \"1\"" "response round 2" \
		"response task \"beta\""; do
		set -- $bad && rm -rf bad && mkdir -p bad/r1 && cp $r/r1/*.json bad/r1/ &&
		python3 -c "import json,sys; p = sys.argv[1]; d = json.load(open(p)); d[sys.argv[2]] = json.loads(sys.argv[3]); json.dump(d, open(p, \"w\"))" \
			bad/r1/$1.json "$2" "$3" &&
		expect_fail 2 "record: .*'"'"'$2'"'"'.*: '"'"'bad/r1/$1.json'"'"'" "$RETORT_BIN/record" -o bad/rec.json out/v/alpha/task.json bad/r1/*.json &&
		test ! -e bad/rec.json || return 1
	done &&
	rm -rf bad && mkdir -p bad/r1 && cp $r/r1/*.json bad/r1/ &&
	python3 -c "import json; p = \"bad/r1/response.json\"; d = json.load(open(p)); d[\"messages\"][0][\"role\"] = 1; json.dump(d, open(p, \"w\"))" &&
	expect_fail 2 "field .messages\[0\]\.role. is not a string: .bad/r1/response.json." \
		"$RETORT_BIN/record" -o bad/rec.json out/v/alpha/task.json bad/r1/*.json &&
	rm -rf bad && mkdir -p bad/r1 && cp $r/r1/*.json bad/r1/ &&
	python3 -c "import json; p = \"bad/r1/response.json\"; d = json.load(open(p)); del d[\"status\"]; json.dump(d, open(p, \"w\"))" &&
	expect_fail 2 "no .status. field (a string): .bad/r1/response.json." "$RETORT_BIN/record" -o bad/rec.json out/v/alpha/task.json bad/r1/*.json
'
test_expect_success 'a round of a model without prices: the record says cost null, the report "price unknown"' '
	cd p && rm -rf unp && mkdir -p unp/r1 && cp out/v/alpha/s0/r1/*.json unp/r1/ &&
	python3 -c "import json; p = \"unp/r1/response.json\"; d = json.load(open(p)); d[\"cost_usd\"] = None; json.dump(d, open(p, \"w\"))" &&
	"$RETORT_BIN/record" -o unp/rec.json out/v/alpha/task.json unp/r1/*.json &&
	test "$(field unp/rec.json "d[\"cost_usd\"]")" = None &&
	"$RETORT_BIN/report" -o unp/report.html unp/rec.json && grep -q "price unknown for 1 samples" unp/report.html
'
if can_fill; then
	test_expect_success 'package on a full disk: exit 1; a new folder is not left, the last dataset stays whole, an unchanged one needs no room' '
		cd p && find out/v -name record.json | sort >recs &&
		onfull 1M "$RETORT_BIN/package" -o full/ds @recs && test "$(cat rc)" = 1 &&
		grep -q "not enough space" err && test ! -s left &&
		onfull 40M sh -c "\"\$0\" -o full/ds @recs && cp full/ds/SHA256SUMS sums.before &&
			head -c 12M /dev/zero >full/filler && \"\$0\" -o full/ds --meta changed=yes @recs; echo \$? >rc2;
			\"\$0\" -o full/ds @recs; echo \$? >rc3;
			cd full/ds && sha256sum -c ../../sums.before && cmp SHA256SUMS ../../sums.before" "$RETORT_BIN/package" &&
		test "$(cat rc)" = 0 && test "$(cat rc2)" = 1 && grep -q "not enough space" err && test "$(cat rc3)" = 0
	'
else
	test_skip "package on a full disk: needs root and mount namespaces"
fi
test_expect_success 'ninja report writes a page' '
	cd p && ninja report >/dev/null && grep -q "Pass rate per stage and round" out/report.html &&
	grep -q "<td>2</td>" out/report.html &&
	grep -q "Why none was verified:</b> no GPU ran them: verify says .skipped: no CUDA device. for the" out/report.html
'
test_expect_success 'package --project reads many archives in name order' '
	mkdir -p many && python3 - many <<EOF &&
import io, json, sys, tarfile
for k in [7, 3, 12, 0, 9, 1, 15, 4, 11, 2, 14, 6, 10, 5, 13, 8]:
    with tarfile.open("%s/shard-%05d.tar.gz" % (sys.argv[1], k), "w:gz") as t:
        data = (json.dumps({"id": "archive %d" % k}) + "\\n").encode()
        i = tarfile.TarInfo("data/test-00000.jsonl")
        i.size = len(data)
        t.addfile(i, io.BytesIO(data))
EOF
	"$RETORT_BIN/package" --project many >many.txt && cat many.txt &&
	test "$(sed "s/.*archive \([0-9]*\).*/\1/" many.txt | tr "\n" " ")" = "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 "
'
test_expect_success 'a record'"'"'s text reaches the report escaped (an outcome that is markup)' '
	cd p && python3 -c "import json; d = json.load(open(\"unp/rec.json\"))
d[\"outcome\"] = \"<script>document.body.setAttribute(\\\"data-pwned\\\", 1)</script>\"
json.dump(d, open(\"unp/xss.json\", \"w\"))" &&
	"$RETORT_BIN/report" -o unp/xss.html unp/xss.json && ! grep -q "<script" unp/xss.html &&
	grep -q "&lt;script&gt;document.body.setAttribute(&quot;data-pwned&quot;, 1)&lt;/script&gt;" unp/xss.html
'
browser=$(command -v chromium || command -v chromium-browser || true)
if test -n "$browser"; then
	test_expect_success 'the report renders in headless Chromium (screenshot); a record'"'"'s markup runs nothing there' '
		cd p && "$browser" --headless --no-sandbox --disable-gpu --screenshot="$T/report.png" \
			--window-size=1200,900 "file://$T/p/out/report.html" >chrome.log 2>&1;
		test -s "$T/report.png" && test "$(wc -c < "$T/report.png")" -gt 10000 &&
		if test -n "${RETORT_KEEP_SCREENSHOT:-}"; then cp "$T/report.png" "$RETORT_KEEP_SCREENSHOT"; fi &&
		"$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$T/p/unp/xss.html" >dom.html 2>chrome.log;
		grep -q "data-pwned" dom.html && ! grep -q "data-pwned=" dom.html
	'
else
	test_skip 'the report in headless Chromium: chromium is not installed'
fi
if PY=$("$RETORT_ROOT/tests/lib/pyenv" 2>/dev/null); then
	test_expect_success LONG 'Hugging Face datasets loads the extracted shards' '
		cd p && ninja dataset >/dev/null && rm -rf y && mkdir y && for a in out/dataset/*.tar.gz; do tar xzf $a -C y; done &&
		HF_HOME="$T/hf" HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 "$PY" - y <<EOF
import json, sys
from datasets import load_dataset
ds = load_dataset(sys.argv[1])
counts = json.load(open(sys.argv[1] + "/manifest.json"))["counts"]
print({k: len(v) for k, v in ds.items()}, counts)
assert {k: len(v) for k, v in ds.items()} == {k: n for k, n in counts.items() if n}
t = ds["trajectories"] if "trajectories" in ds else ds["test"]
for field in ("messages", "final_kernel", "outcome", "rounds", "teacher", "usage", "speedup"):
    assert field in t.features, field
m = t[0]["messages"]
assert m[0]["role"] == "system" and m[2]["role"] == "assistant" and "reasoning_content" in m[2]
EOF
	'
else
	test_skip 'Hugging Face datasets: cannot install tests/lib/requirements.txt from PyPI'
fi
test_done
