#!/bin/sh
# tests/gpu/smoke/smoke.sh - by hand on a GPU host: a Triton candidate and
# a PyTorch baseline through verify and bench (the Python harness), quickly.
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
W=${1:-/tmp/smoke}
B=$ROOT/out/bin
PY=$(python3 -c 'import sys; print(sys.prefix)')
rm -rf "$W"; mkdir -p "$W/gpu" "$W/r1" && cd "$W" || exit 1
$B/prepare --runtime --arch sm_90a --src "$ROOT/src" -o out/runtime/harness.o || exit 1
mkdir -p t && ln -s "$ROOT/tasks/prompts" t/prompts &&
	awk '/^baseline:/ { skip = 1; next } skip && /^[a-z]/ { skip = 0 } !skip' "$ROOT/tasks/relu.yaml" >t/relu.yaml
printf 'baseline:\n  python: |\n    import torch\n    def baseline(x, y, n):\n        return torch.relu(x)\n    _c = torch.compile(lambda x: torch.relu(x))\n    def baseline_compile(x, y, n):\n        return _c(x)\n' >>t/relu.yaml
$B/gen --split t/relu.yaml --all --out out --tasks-dir t >/dev/null || exit 1
d=out/v/relu
$B/prepare --harness --object out/runtime/harness.o -o $d/harness $d/task.json &&
$B/prepare --reference --src "$ROOT/src" -o $d/reference $d/task.json &&
$B/verify --expected --cache-dir cache -o $d/expected.json $d/task.json $d/reference &&
$B/prepare --baseline -o $d/baseline.py $d/task.json || exit 1
time $B/verify --baseline --lock-dir gpu --gpu-python "$PY" -o $d/oracle.json $d/task.json $d/harness $d/expected.json $d/baseline.py
python3 -c "import json,sys; d=json.load(open('$d/oracle.json')); print('oracle', d['verdict'], d.get('lockdown'), d.get('feedback','')[:2000])"
time $B/bench --baseline --lock-dir gpu --gpu-python "$PY" -o $d/baseline.json $d/task.json $d/harness $d/oracle.json $d/baseline.py
python3 -c "import json; d=json.load(open('$d/baseline.json')); print('baseline', json.dumps(d)[:1500])"
cp "$ROOT/tests/gpu/smoke/relu_triton.py" r1/cand.py && echo '{"status": "ok", "lang": "triton"}' >r1/compile.json
echo '{"gpu": null}' >cal.json
time $B/verify --lock-dir gpu --gpu-python "$PY" -o r1/verify.json $d/task.json r1/compile.json $d/harness $d/expected.json $d/oracle.json
python3 -c "import json; d=json.load(open('r1/verify.json')); print('verify', d['verdict'], d.get('gpu_seconds'), d.get('start_seconds'), d.get('feedback','')[:2000])"
time $B/bench --lock-dir gpu --gpu-python "$PY" -o r1/bench.json $d/task.json r1/verify.json r1/compile.json $d/harness cal.json $d/baseline.json
python3 -c "import json; d=json.load(open('r1/bench.json')); c=d.get('cases',[{}])[0]; print('bench', d.get('status'), d.get('gpu_seconds'), {k: c.get(k) for k in ('speedup','speedup_compile','checks','seconds')}, (c.get('candidate') or {}).get('median_ms'), d.get('feedback','')[:800])"
