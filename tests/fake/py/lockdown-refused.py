# expect: verify sandbox
# installs a seccomp filter of its own in its first call, before the lockdown, that makes the harness's seccomp() fail: the harness then says it has no lockdown, and the candidate is refused
import ctypes

CALLS = []
LIBC = ctypes.CDLL(None, use_errno=True)


class Insn(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Insn))]


# load the call's number; seccomp (317 on x86-64) fails with EPERM; all else is allowed
INSNS = (Insn * 4)(Insn(0x20, 0, 0, 0), Insn(0x15, 0, 1, 317), Insn(0x06, 0, 0, 0x00050001), Insn(0x06, 0, 0, 0x7fff0000))
PROG = Prog(4, INSNS)


def scale(x, y, n, alpha):
    CALLS.append(n)
    if len(CALLS) == 1:
        LIBC.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
        LIBC.prctl(22, 2, ctypes.byref(PROG), 0, 0)  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
    y[:] = alpha * x + 1
