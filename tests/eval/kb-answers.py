#!/usr/bin/env python3
"""tests/eval/kb-answers.py - a replayed student's answers for imported KernelBench problems

usage: kb-answers.py TASKS_DIR TASK_JSON...

For each variant's task.json (gen --split writes them), writes the replay
provider's answers TASKS_DIR/replay/<variant>/s0-r1.md and s1-r1.md, from
the task's own signature:

  an elementwise activation of one f32 input (the spec's name says which:
  relu, leakyrelu, sigmoid, tanh, swish, gelu, selu, hardsigmoid,
  softplus, softsign, elu, hardtanh)
      s0  a grid-stride kernel over the output (correct)
      s1  the same kernel on one block of 32 threads (correct, slow)
  any other problem
      s0  a kernel that writes zeros to every output (wrong results)
      s1  a kernel that does not compile

So an evaluation of them has correct, slow, wrong and broken samples, and
fast_p of the first sample differs from best of k. These answers are
hand-written templates, not a model's.
"""
import json
import os
import sys

# y from x (and a: the module's float constructor argument, where it has one)
OPS = {
    "relu": "fmaxf(x, 0.0f)",
    "leakyrelu": "x > 0.0f ? x : x * A(0.01f)",
    "sigmoid": "1.0f / (1.0f + expf(-x))",
    "tanh": "tanhf(x)",
    "swish": "x / (1.0f + expf(-x))",
    "gelu": "0.5f * x * (1.0f + erff(x * 0.70710678118654752f))",
    "selu": "1.0507009873554805f * (x > 0.0f ? x : 1.6732632423543772f * (expf(x) - 1.0f))",
    "hardsigmoid": "fminf(fmaxf(x / 6.0f + 0.5f, 0.0f), 1.0f)",
    "softplus": "x > 20.0f ? x : log1pf(expf(x))",
    "softsign": "x / (1.0f + fabsf(x))",
    "elu": "x > 0.0f ? x : A(1.0f) * (expf(x) - 1.0f)",
    "hardtanh": "fminf(fmaxf(x, -1.0f), 1.0f)",
}


def op(task):
    """the activation the spec's name (kb<level>-<problem>-<name>) says, for one f32 input and output"""
    name = task["spec"].split("-", 2)[-1]
    ins = [a for a in task["args"] if a["kind"] == "in"]
    outs = [a for a in task["args"] if a["kind"] == "out"]
    if len(ins) != 1 or len(outs) != 1 or ins[0]["dtype"] != "f32" or outs[0]["dtype"] != "f32":
        return None
    if ins[0]["shape"] != outs[0]["shape"]:
        return None
    return OPS.get(name.split("-")[0])


def count(arg):
    return " * ".join("(long long)(%s)" % d for d in arg["shape"]) or "1"


def activation(task, expr, blocks):
    x = [a for a in task["args"] if a["kind"] == "in"][0]["name"]
    y = [a for a in task["args"] if a["kind"] == "out"][0]
    scalars = [a["name"] for a in task["args"] if a["kind"] == "scalar"]
    a = scalars[0] if scalars else None
    body = expr.replace("A(0.01f)", "a" if a else "0.01f").replace("A(1.0f)", "a" if a else "1.0f")
    param = ", float a" if a else ""
    grid = "(int)((n + 255) / 256 < 65535 ? (n + 255) / 256 : 65535), 256" if blocks else "1, 32"
    return """One thread per element, grid-stride.

```cuda
#include <cuda_runtime.h>
#include <math.h>

__global__ void act(const float* __restrict__ xs, float* __restrict__ ys, long long n%s)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        float x = xs[i];
        ys[i] = %s;
    }
}

%s
{
    long long n = %s;
    act<<<%s>>>(%s, %s, n%s);
}
```
""" % (param, body, task["signature"], count(y), grid, x, y["name"], ", " + a if a else "")


def zeros(task):
    lines = []
    for a in task["args"]:
        if a["kind"] == "out":
            size = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2}.get(a["dtype"], 1)
            lines.append("    zero<<<1024, 256>>>((unsigned char*)%s, %s * %d);" % (a["name"], count(a), size))
    return """Zeros, for now.

```cuda
#include <cuda_runtime.h>

__global__ void zero(unsigned char* p, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        p[i] = 0;
}

%s
{
%s
}
```
""" % (task["signature"], "\n".join(lines))


def broken(task):
    return """Not finished.

```cuda
%s
{
    this does not compile;
}
```
""" % task["signature"]


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    kinds = {}
    for path in sys.argv[2:]:
        task = json.load(open(path))
        expr = op(task)
        answers = [activation(task, expr, True), activation(task, expr, False)] if expr else [zeros(task), broken(task)]
        d = os.path.join(sys.argv[1], "replay", task["id"])
        os.makedirs(d, exist_ok=True)
        for s, text in enumerate(answers):
            with open(os.path.join(d, "s%d-r1.md" % s), "w") as f:
                f.write(text)
        kinds[task["id"]] = "activation" if expr else "zeros, broken"
    for v in sorted(kinds):
        print("%-48s %s" % (v, kinds[v]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
