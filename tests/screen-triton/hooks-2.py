# host code in an autotune config's pre_hook and in an annotation
import triton
import triton.language as tl


def hook(nargs):
    nargs["y_ptr"].copy_(nargs["x_ptr"])


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, pre_hook=hook)], key=["n"], prune_configs_by={})
@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: print("host")):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


def run(x, y, n):
    k[(triton.cdiv(n, 1024),)](x, y, n)
