# pyref.py - a spec's Python reference, run for the reference runner
# (refrun.c with pycall.c) in the sandbox, by the interpreter of the
# references' virtual environment (JAILVENV): python -I -B -c THIS.
# It reads the header and each case's inputs on descriptor 0, widens
# floating inputs to float64, calls reference() and writes the outputs
# back on descriptor 1 in the reference types, so the Python reference
# computes in float64. doc/verification.md (The reference runner) gives
# the protocol.
#
# Exit: 0 done; 1 the reference failed (the traceback on stderr); 2 bad
# protocol.
import json
import os
import sys
import traceback

import numpy as np

REFTYPES = {"double": np.float64, "float": np.float32, "int8_t": np.int8, "uint8_t": np.uint8,
            "int16_t": np.int16, "int32_t": np.int32, "int64_t": np.int64}


def readexact(f, n):
    b = bytearray(n)
    view, got = memoryview(b), 0
    while got < n:
        k = f.readinto(view[got:])
        if not k:
            raise EOFError("the runner closed the pipe in the middle of a case")
        got += k
    return b


def asarray(v, name, want):
    if hasattr(v, "detach"):  # a torch tensor
        v = v.detach().cpu().double().numpy() if v.is_floating_point() else v.detach().cpu().numpy()
    a = np.asarray(v)
    if a.size != int(np.prod(want)):
        raise ValueError("reference returned %d values (shape %s) for '%s', which has shape %s"
                         % (a.size, list(a.shape), name, list(want)))
    return a.reshape(want)


def runcase(fn, args, fields, pin, pout):
    nt = int(fields[1])
    pos, dims = 2, []
    for _ in range(nt):
        d = int(fields[pos + 1])
        dims.append(tuple(int(x) for x in fields[pos + 2:pos + 2 + d]))
        pos += 2 + d
    ns = int(fields[pos])
    sizes = [int(x) for x in fields[pos + 1:pos + 1 + ns]]
    pos += 1 + ns
    nc = int(fields[pos])
    scalars = [float(x) for x in fields[pos + 1:pos + 1 + nc]]
    params, tensors = [], []
    it, isz, isc = 0, 0, 0
    for a in args:
        if a["kind"] in ("in", "out", "inout"):
            ref = np.dtype(REFTYPES[a["ref"]])
            shape = dims[it]
            it += 1
            if a["kind"] == "out":
                arr = np.full(shape, np.nan) if ref.kind == "f" else np.zeros(shape, ref)
            else:
                raw = readexact(pin, int(np.prod(shape)) * ref.itemsize)
                arr = np.frombuffer(raw, dtype=ref).reshape(shape)
                arr = arr.astype(np.float64) if ref.kind == "f" else arr.copy()
            tensors.append((a, arr, ref))
            params.append(arr)
        elif a["kind"] == "size":
            params.append(sizes[isz])
            isz += 1
        else:
            v = scalars[isc]
            isc += 1
            params.append(v if a["ref"] in ("float", "double") else int(v))
    got = fn(*params)
    outs = [t for t in tensors if t[0]["kind"] != "in"]
    if got is not None:
        got = list(got) if isinstance(got, (tuple, list)) else [got]
        if len(got) != len(outs):
            raise ValueError("reference returned %d values; the task has %d outputs (%s)"
                             % (len(got), len(outs), ", ".join(t[0]["name"] for t in outs)))
        for (a, arr, ref), v in zip(outs, got):
            arr[...] = asarray(v, a["name"], arr.shape)
    for a, arr, ref in outs:
        pout.write(np.ascontiguousarray(arr).astype(ref).tobytes())
    pout.flush()


def main():
    # the protocol's pipes, kept apart from what the reference prints or reads
    pin = os.fdopen(os.dup(0), "rb", buffering=1 << 20)
    pout = os.fdopen(os.dup(1), "wb", buffering=1 << 20)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    head = json.loads(pin.readline())
    scope = {"__name__": "reference"}
    try:
        exec(compile(head["source"], "reference", "exec"), scope)
        fn = scope.get("reference")
        if not callable(fn):
            raise NameError("the Python reference defines no function 'reference'")
        while True:
            line = pin.readline()
            if not line:
                break
            fields = line.split()
            if not fields or fields[0] != b"case":
                print("pyref: bad case line: %r" % line[:80], file=sys.stderr)
                return 2
            runcase(fn, head["args"], fields, pin, pout)
    except BrokenPipeError:
        return 1
    except Exception:
        traceback.print_exc()
        return 1
    return 0


sys.exit(main())
