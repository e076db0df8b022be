# expect: verify violation
# starts a thread in a call after its case's first (work that outlives the call), and goes on when refused: caught
import threading

CALLS = []


def scale(x, y, n, alpha):
    CALLS.append(n)
    if CALLS.count(n) > 1:
        try:
            threading.Thread(target=lambda: None).start()
        except RuntimeError:
            pass
    y[:] = alpha * x + 1
