# expect: bench measured
# honest, but its first call leaves a process behind in a session of its own (sleep 7391, its parent gone): ended with the harness
import os

LEFT = []


def scale(x, y, n, alpha):
    if not LEFT:
        pid = os.fork()
        if pid == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv("/bin/sleep", ["sleep", "7391"])
            os._exit(0)
        os.waitpid(pid, 0)
        LEFT.append(pid)
    y[:] = alpha * x + 1
