"""The before-fork wait (internal/forksafe: wait.c, quiet.c) on a starved machine.

CI runs its five CPython passes side by side on two cores, and there a storm's fork
child hung at its first Go call with no free P (stoplockedm): the forking thread had
given up waiting, on wall-clock limits, for Go threads that were not getting a CPU,
and forked while one of them was inside the runtime. These tests call the wait's C
functions in the godlpack module directly (ctypes), each scenario in a fresh
interpreter: the handshake with the helper that stops the world, and the wait for the
runtime's threads to park while one of them is starved of CPU time.
"""

from __future__ import annotations

import os
import textwrap

import pytest
from conftest import run_script

COMMON = """
import ctypes, threading, time
import godlpack as g

lib = ctypes.CDLL(g._godlpack.__file__)
lib.gd_fork_helper_begin.argtypes = [ctypes.c_ulonglong]
lib.gd_fork_helper_done.argtypes = [ctypes.c_ulonglong]
lib.gd_fork_wait_helper.argtypes = [ctypes.c_ulonglong, ctypes.c_long]
lib.gd_fork_wait_quiet.argtypes = [ctypes.c_long]
"""

HANDSHAKE = """
# Generations far above any fork of this process (it makes none).
GEN = 1 << 40

# The forking thread gives up on a helper that has not begun: the helper, late,
# must then never stop the world (a fork would copy it half done).
assert lib.gd_fork_helper_begin(GEN) == 0  # the thread is not waiting yet
assert lib.gd_fork_wait_helper(GEN, 0) == 0  # a limit of 0 s: given up at once
assert lib.gd_fork_helper_begin(GEN) == -1, "a late helper stopped the world after the fork"

# A helper that has begun is waited for past the limit, however long it takes.
result = []
t = threading.Thread(target=lambda: result.append(lib.gd_fork_wait_helper(GEN + 1, 1)))
t.start()
while (r := lib.gd_fork_helper_begin(GEN + 1)) == 0:
    time.sleep(0.001)
assert r == 1, r
time.sleep(1.5)  # past the thread's 1 s limit
assert t.is_alive() and not result, "the thread forked while the world was being stopped"
lib.gd_fork_helper_done(GEN + 1)
t.join(10)
assert result == [1], result

# A helper of an earlier fork (abandoned) never claims a later one.
assert lib.gd_fork_helper_begin(GEN) == -1
print("ok")
"""


def test_helper_and_forking_thread_agree_on_who_goes(tmp_path):
    out = run_script(tmp_path, "handshake", COMMON + textwrap.dedent(HANDSHAKE), timeout=60)
    assert out.split() == ["ok"], out


BUSY_CALLER = """
# Another thread keeps calling Go (an Array's repr runs in the runtime) while the
# wait looks: the runtime is never quiet, and the thread doing it is running Go
# code, so the wait gives up after 500 ms of that thread's CPU time. It is not the
# first thread the wait finds not quiet: sysmon, older, is kept polling by the
# calls and uses almost no CPU, and counting only it held os.fork() on a
# free-threaded CPython (whose other threads run until after the before hooks) for
# the whole 30 s backstop.
stop = threading.Event()
def call_go():
    a = g.Array([1.0, 2.0, 3.0])
    while not stop.is_set():
        repr(a)
t = threading.Thread(target=call_go)
t.start()
time.sleep(0.3)
t0 = time.monotonic()
quiet = lib.gd_fork_wait_quiet(500_000_000)  # ctypes lets the GIL go meanwhile
waited = time.monotonic() - t0
stop.set()
t.join()
print(quiet, f"{waited:.3f}")
"""


def test_wait_gives_up_on_a_thread_that_keeps_calling_go(tmp_path):
    out = run_script(tmp_path, "busy_caller", COMMON + textwrap.dedent(BUSY_CALLER), timeout=60)
    quiet, waited = out.split()
    # 500 ms of the calling thread's CPU, on a machine that may be running another
    # suite beside this one: seconds at most (it was 20-30 s)
    assert float(waited) < 8, f"the wait ran {waited} s beside a thread calling Go"
    assert quiet == "0", "quiet while another thread was calling Go"


STARVED = """
import hashlib, os, subprocess, sys

# A thread that needs a little CPU time, starved of it: at the idle priority, on
# CPU 0, beside two busy processes at normal priority there. It is not parked
# (running C code without the GIL), so the wait must not end before it is done.
BURN = "import os; os.sched_setaffinity(0, {0})\\nwhile True: pass"
burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(2)]
data = b"x" * (16 << 20)
def work():
    os.sched_setaffinity(0, {0})
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))  # this thread's policy
    ready.set()
    wall0, cpu0 = time.monotonic(), time.thread_time()
    hashlib.sha256(data).digest()  # the GIL is let go for the hash
    done.append((time.monotonic() - wall0, time.thread_time() - cpu0))
try:
    time.sleep(0.5)  # the burners are running
    # A loaded machine (CI) may still give the thread its CPU time sooner than the
    # old limit: up to 3 tries for one where it was starved past it.
    for _ in range(3):
        done = []
        ready = threading.Event()
        t = threading.Thread(target=work)
        t.start()
        ready.wait()
        t0 = time.monotonic()
        quiet = lib.gd_fork_wait_quiet(500_000_000)  # 500 ms of the thread's CPU time
        waited = time.monotonic() - t0
        finished = bool(done)
        t.join()
        if done[0][0] > 0.6:
            break
finally:
    for b in burners:
        b.kill()
        b.wait()
print(quiet, finished, f"{waited:.3f}", f"{done[0][0]:.3f}", f"{done[0][1]:.3f}")
"""


@pytest.mark.slow  # starves a thread for seconds by design (at a load of 8: past the wait)
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs 2 CPUs to starve one")
def test_wait_outlasts_a_starved_thread(tmp_path):
    # Before, the wait ended after 500 ms of wall-clock time, with the thread still
    # waiting for a CPU in the middle of its work (a Go thread in a critical section,
    # for the fork to copy so).
    out = run_script(tmp_path, "starved", COMMON + textwrap.dedent(STARVED), timeout=120)
    quiet, finished, waited, wall, cpu = out.split()
    assert float(wall) > 0.6, f"the thread was not starved ({cpu} s of work took {wall} s)"
    assert (quiet, finished) == ("1", "True"), (
        f"the wait ended after {waited} s, before the starved thread finished its"
        f" {cpu} s of work (which took it {wall} s)"
    )
