# tests/kernelbench/same-on-cpu.py SPEC.yaml - an imported spec's baseline
# (the module as bench times it on the GPU), run here on the CPU in f32,
# against its reference (float64) on the same random inputs: prints the
# largest difference and fails when it is over 1e-4 or when the baseline
# wrote any of its inputs. For a module whose mode matters (a batch norm
# in training mode) the two must agree. Specs whose constructor floats are
# scalars are not handled. Needs torch and numpy only (the
# spec's literal blocks are read without a YAML library).
import inspect
import re
import sys

import numpy as np
import torch


def block(lines, key):
    """the text of KEY's `python: |` literal block (KEY at column 0)"""
    at = lines.index(key + ":\n") + 2
    out = []
    for line in lines[at:]:
        if line.strip() and not line.startswith("    "):
            break
        out.append(line[4:])
    return "".join(out)


lines = open(sys.argv[1]).readlines()
ref, base = {}, {}
exec(block(lines, "reference"), ref)
exec(block(lines, "baseline").replace('device="cuda"', 'device="cpu"'), base)
rng = np.random.default_rng(7)
model = ref["Model"](*ref["_INIT"]).double()
params = dict(model.named_parameters())
params.update(model.named_buffers())
# get_inputs' own values: floats widened, integers kept, bool masks as u8
x = [t.double().numpy() if t.is_floating_point() else t.to(torch.uint8 if t.dtype == torch.bool else t.dtype).numpy()
     for t in ref["get_inputs"]()]
state = [rng.uniform(-0.3, 0.3, params[n].shape) for n in ref["_STATE"]]
names = list(inspect.signature(ref["reference"]).parameters)
shapes = dict(zip(names, [t.shape for t in x]))
# after the inputs: outputs (unused: the module returns them) and sizes,
# named <input>_d<k> for dimension k of an input
rest = []
for n in names[len(x) + len(state):]:
    m = re.fullmatch(r"(.+)_d(\d+)", n)
    rest.append(shapes[m.group(1)][int(m.group(2))] if m and m.group(1) in shapes else None)
want = ref["reference"](*x, *state, *rest).numpy()
ins = [torch.tensor(a, dtype=torch.float32) if a.dtype == np.float64 else torch.from_numpy(a.copy()) for a in x + state]
keep = [t.clone() for t in ins]
y = base["baseline"](*ins, *rest).numpy()
diff = float(np.abs(y - want).max())
same = all(torch.equal(a, k) for a, k in zip(ins, keep))
print("max abs diff %.3g, inputs unchanged: %s" % (diff, same))
sys.exit(0 if diff <= 1e-4 and same else 1)
