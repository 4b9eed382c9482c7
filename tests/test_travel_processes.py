"""Arrays that travel between processes: multiprocessing pools (fork, spawn,
forkserver) and ProcessPoolExecutor with Arrays as arguments and results, and
shared-memory Arrays that travel as a handle (a memfd descriptor) so that a worker's
writes are seen by the parent, and that no segment outlives the last process using
it, also when that process is killed with SIGKILL (checked in /proc and /dev/shm).

Each scenario is a script run in a fresh interpreter with a timeout (conftest's
run_script): a hang or a crash fails the test.
"""

from __future__ import annotations

import textwrap

import pytest
from conftest import run_script


def main(body: str) -> str:
    """body as the script's main block: spawn and forkserver workers import the script."""
    return 'if __name__ == "__main__":\n' + textwrap.indent(textwrap.dedent(body), "    ")


COMMON = """
import gc, os, signal, sys, time
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
import numpy as np
import godlpack as g

def shm_names():
    # multiprocessing's own named semaphores (sem.mp-*) come and go with its pools
    # and resource tracker: not ours, and not what this checks
    return {n for n in os.listdir("/dev/shm") if not n.startswith("sem.mp-")}

def shm_settles(before):
    # True once /dev/shm holds nothing that was not there before (other programs'
    # entries may come and go meanwhile; ours never appear: memfds have no name there)
    deadline = time.time() + 10
    while not shm_names() <= before and time.time() < deadline:
        time.sleep(0.1)
    return shm_names() <= before

def segment_inode(a):
    return os.fstat(a._keep().fd).st_ino

def holders(ino):
    # pids of every visible process that maps the memfd or holds a descriptor of it
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/maps") as f:
                for line in f:
                    parts = line.split()
                    if len(parts) >= 6 and "memfd:godlpack" in parts[5] and int(parts[4]) == ino:
                        found.add(int(pid))
            for fd in os.listdir(f"/proc/{pid}/fd"):
                path = f"/proc/{pid}/fd/{fd}"
                if "memfd:godlpack" in os.readlink(path) and os.stat(path).st_ino == ino:
                    found.add(int(pid))
        except OSError:
            pass  # a process that ended meanwhile
    return found

def fill(args):
    a, value = args
    assert g.is_shared(a), "a shared Array must arrive shared"
    np.asarray(a)[...] = value  # through the buffer protocol, into the shared pages
    return a

def make_shared(n):
    s = g.shared_zeros(n, "int32")
    np.asarray(s)[:] = np.arange(n, dtype=np.int32)
    return s

def plus_one(a):
    assert not g.is_shared(a)
    return g.asarray(np.asarray(a) + 1)
"""

POOLS = """
method = sys.argv[1]
ctx = mp.get_context(method)
shm_before = shm_names()
a = g.shared_zeros((4, 5), "float64")
ino = segment_inode(a)
with ctx.Pool(2) as pool:
    # views travel as handles too: each row is filled by a worker, in place
    out = pool.map(fill, [(a[i], i + 1) for i in range(4)])
    assert np.asarray(a)[:, 0].tolist() == [1, 2, 3, 4], np.asarray(a)
    assert all(g.is_shared(o) for o in out)
    np.asarray(out[2])[0] = 99  # a result is a view of the same pages
    assert np.asarray(a)[2, 0] == 99
    w = pool.apply(make_shared, (10,))  # memory a worker made, shared with the parent
    assert g.is_shared(w) and np.asarray(w).tolist() == list(range(10))
    # a plain Array travels as its elements, both ways
    p = pool.apply(plus_one, (g.arange(6, dtype="int64")[::2],))
    assert not g.is_shared(p) and p.tolist() == [1, 3, 5] and p.dtype == "int64"
with ProcessPoolExecutor(2, mp_context=ctx) as ex:
    r = ex.submit(fill, (a[1:3], 7.5)).result()
    assert (np.asarray(a)[1:3] == 7.5).all() and g.is_shared(r)
    p = ex.submit(plus_one, g.asarray([[1, 2]], dtype="uint8")).result()
    assert p.tolist() == [[2, 3]] and p.dtype == "uint8"
del out, r, w
assert holders(ino) == {os.getpid()}, holders(ino)  # workers are gone: only we map it
del a
gc.collect()
assert holders(ino) == set(), holders(ino)  # the last user let go: the memfd is freed
assert shm_settles(shm_before), shm_names() - shm_before
print("ok", method)
"""


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_pools_and_executor_send_arrays_and_shared_handles(tmp_path, method):
    out = run_script(tmp_path, "pools", COMMON + main(POOLS), args=(method,))
    assert out.strip() == f"ok {method}"


HOLD = """
def hold(a, ready):
    np.asarray(a)[0] = 42
    ready.set()
    time.sleep(600)
"""

SIGKILL = """
method = sys.argv[1]
ctx = mp.get_context(method)
shm_before = shm_names()
a = g.shared_zeros(1 << 20, "uint8")
ino = segment_inode(a)
ready = ctx.Event()
p = ctx.Process(target=hold, args=(a[10:], ready))
p.start()
assert ready.wait(60)
assert np.asarray(a)[10] == 42  # the worker's write, seen here
del a  # the worker now holds the last reference
gc.collect()
assert holders(ino) == {p.pid}, (holders(ino), p.pid)
os.kill(p.pid, signal.SIGKILL)
p.join()
assert p.exitcode == -signal.SIGKILL
deadline = time.time() + 10
while holders(ino) and time.time() < deadline:
    time.sleep(0.05)
assert holders(ino) == set(), holders(ino)  # nothing outlives the killed last user
assert shm_settles(shm_before), shm_names() - shm_before
print("ok")
"""


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_sigkill_of_the_last_user_frees_the_segment(tmp_path, method):
    assert (
        run_script(tmp_path, "sigkill", COMMON + HOLD + main(SIGKILL), args=(method,)).strip()
        == "ok"
    )


CONSTANT = """
from multiprocessing.reduction import ForkingPickler
small, big = g.shared_zeros(1 << 10, "uint8"), g.shared_zeros(64 << 20, "uint8")
sizes = [len(ForkingPickler.dumps(x)) for x in (small, big, big[5:9])]
assert max(sizes) - min(sizes) < 16, sizes  # a handle: the same few bytes at any size
back = ForkingPickler.loads(ForkingPickler.dumps(big[5:9]))  # through our resource sharer
np.asarray(back)[:] = 7
assert np.asarray(big)[4:10].tolist() == [0, 7, 7, 7, 7, 0]
print("ok", sizes)
"""


def test_a_shared_array_pickles_to_a_handle_of_constant_size(tmp_path):
    assert run_script(tmp_path, "constant", COMMON + main(CONSTANT)).startswith("ok")
