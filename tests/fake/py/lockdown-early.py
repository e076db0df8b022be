# expect: verify crash
# makes the runtime's relro pages (its bound slots) writable in its first call, before the lockdown, to rewrite them in a later one: they are read-only again at the lock, and the write faults
import ctypes
import sys

CALLS = []
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def relro():
    """the runtime's last read-only data mapping, just below its writable data: its RELRO (the bound slots)"""
    last = None
    with open("/proc/self/maps") as f:
        for line in f:
            part = line.split()
            if part[-1] == sys.argv[2] and part[1] == "r--p":
                lo, hi = (int(v, 16) for v in part[0].split("-"))
                last = (lo, hi - lo)
    return last


PAGES = relro()


def scale(x, y, n, alpha):
    CALLS.append(n)
    if len(CALLS) == 1:
        LIBC.mprotect(PAGES[0], PAGES[1], 3)  # PROT_READ | PROT_WRITE, before the lockdown: allowed
    elif CALLS.count(n) > 1:
        ctypes.memmove(PAGES[0], PAGES[0], 8)  # a slot rewritten (with itself), no system call
    y[:] = alpha * x + 1
