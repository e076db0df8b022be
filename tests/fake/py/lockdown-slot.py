# expect: verify violation
# makes the harness runtime's read-only slots (its clocks, its event calls) writable to rewrite them, after its case's first call: refused
import ctypes
import sys

CALLS = []
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def slots():
    """the read-only, non-executable pages mapped from the runtime (pyharness.py's LIB; its relro: the bound slots)"""
    with open("/proc/self/maps") as f:
        for line in f:
            part = line.split()
            if part[-1] == sys.argv[2] and part[1] == "r--p":
                lo, hi = (int(v, 16) for v in part[0].split("-"))
                yield lo, hi - lo


PAGES = list(slots())


def scale(x, y, n, alpha):
    CALLS.append(n)
    if CALLS.count(n) > 1:
        for lo, size in PAGES:
            LIBC.mprotect(lo, size, 3)  # PROT_READ | PROT_WRITE
    y[:] = alpha * x + 1
