"""Arrays through the engines users scale out with, started here on this machine:
Dask distributed (a LocalCluster of worker processes), Ray (tasks and its object
store) and MPI (mpi4py with MPICH from PyPI under mpiexec -n 2).

Each scenario is a script in a fresh interpreter (conftest's run_script): engines
start threads and processes that must not outlive the test, and a hang is killed.
"""

from __future__ import annotations

import os
import sys

import pytest
from conftest import run_script, why_unpinned

DASK = """
import os
import numpy as np
import godlpack as g
from dask.distributed import Client, LocalCluster
from distributed.protocol import deserialize, serialize

def double(a):
    assert isinstance(a, g.Array)
    return g.asarray(np.asarray(a) * 2)

def total(a):
    return float(np.asarray(a).astype(np.float64).sum()), os.getpid()

if __name__ == "__main__":
    a = g.arange(1 << 20, dtype="float32")  # 4 MiB
    # out-of-band frames: serializing hands Dask the array's own memory, no copy
    header, frames = serialize(a, serializers=("pickle",))
    big = [f for f in frames if memoryview(f).nbytes == a.nbytes]
    assert big and np.frombuffer(big[0], np.uint8).ctypes.data == a.data_ptr, header
    back = deserialize(header, frames)
    assert back.data_ptr == a.data_ptr and back.dtype == "float32"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        r = client.submit(double, a).result()
        assert r.dtype == "float32" and np.asarray(r)[-3:].tolist() == [2097146, 2097148, 2097150]
        parts = [a[i::4] for i in range(4)]  # strided views pickle their own elements
        results = client.gather(client.map(total, parts))
        assert sum(t for t, _ in results) == float(np.arange(1 << 20, dtype=np.float64).sum())
        assert os.getpid() not in {p for _, p in results}  # computed in worker processes
        [s] = client.scatter([a[::-1]])
        t, pid = client.submit(total, s).result()
        assert t == results[0][0] + results[1][0] + results[2][0] + results[3][0]
        bf = g.asarray([[1.5, -2.0]], dtype="bfloat16").toreadonly()
        e = client.submit(lambda x: x, bf).result()
        assert e.dtype == "bfloat16" and e.tolist() == [[1.5, -2.0]] and e.readonly
    print("ok")
"""


def test_dask_local_cluster_with_worker_processes(tmp_path):
    assert run_script(tmp_path, "dask_cluster", DASK, timeout=180).strip().endswith("ok")


RAY = """
import os
import numpy as np
import godlpack as g
import ray

def mapping_of(address):
    # the /proc/self/maps line of the mapping that holds address
    for line in open("/proc/self/maps"):
        lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
        if lo <= address < hi:
            return line.split(None, 5)[-1]
    return ""

@ray.remote
def double(a):
    assert isinstance(a, g.Array) and a.readonly  # arguments come from the store
    return g.asarray(np.asarray(a) * 2), os.getpid()

@ray.remote
def writable_copy(a):
    return a.copy()

if __name__ == "__main__":
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # a local test cluster: no token
    ray.init(num_cpus=1, object_store_memory=96 << 20, include_dashboard=False,
             log_to_driver=False, configure_logging=False)
    print("ray started", flush=True)  # a hang then says whether it was the start
    try:
        a = g.arange(1 << 20, dtype="int32")
        ref = ray.put(a)
        b, c = ray.get(ref), ray.get(ref)
        # read in place from the object store: both reads view the same bytes, which
        # are not a's, and are read-only, as Ray does for NumPy
        assert b.data_ptr == c.data_ptr != a.data_ptr and b.readonly
        assert "plasma" in mapping_of(b.data_ptr)  # the store's shared mapping, as NumPy's
        assert mapping_of(ray.get(ray.put(np.arange(10))).ctypes.data) == mapping_of(b.data_ptr)
        assert np.asarray(b)[-2:].tolist() == [(1 << 20) - 2, (1 << 20) - 1]
        r, pid = ray.get(double.remote(a[::2]))
        assert pid != os.getpid() and r.dtype == "int32"
        assert np.asarray(r)[:3].tolist() == [0, 4, 8] and r.shape == (1 << 19,)
        f8 = ray.get(writable_copy.remote(g.asarray([1.0, 2.0], dtype="float8_e4m3fn")))
        assert f8.dtype == "float8_e4m3fn" and f8.tolist() == [1.0, 2.0]
    finally:
        ray.shutdown()
    print("ok")
"""


@pytest.mark.skipif(why_unpinned("ray") is not None, reason=str(why_unpinned("ray")))
def test_ray_tasks_and_zero_copy_object_store(tmp_path):
    assert run_script(tmp_path, "ray_tasks", RAY, timeout=180).strip().endswith("ok")


MPI = """
import sys, traceback
import numpy as np
import godlpack as g
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
assert comm.Get_size() == 2
sys.excepthook = lambda *e: (traceback.print_exception(*e), comm.Abort(1))  # no rank waits forever
if rank == 0:
    comm.Send(g.arange(12, dtype="float64").reshape(3, 4), dest=1, tag=7)
    comm.send(g.asarray([1.5, 2.5], dtype="bfloat16"), dest=1, tag=8)  # pickled
    # bfloat16 has no buffer format: mpi4py falls back to DLPack, as before
    comm.Send(g.asarray([3.0, -4.0, 0.5], dtype="bfloat16"), dest=1, tag=9)
else:
    got = g.zeros((3, 4), dtype="float64")
    comm.Recv(got, source=0, tag=7)  # into the Array's memory (buffer protocol)
    assert got.tolist() == np.arange(12.0).reshape(3, 4).tolist()
    obj = comm.recv(source=0, tag=8)
    assert obj.dtype == "bfloat16" and obj.tolist() == [1.5, 2.5]
    bf = g.zeros(3, dtype="bfloat16")
    comm.Recv(bf, source=0, tag=9)
    assert bf.tolist() == [3.0, -4.0, 0.5]
mine = g.full((5,), rank + 1, dtype="int64")
out = g.zeros(5, dtype="int64")
comm.Allreduce(mine, out, op=MPI.SUM)
assert out.tolist() == [3] * 5
# one writer: the two ranks' stdout reach mpiexec's interleaved, even within a line
done = comm.gather(f"ok {rank}", root=0)
if rank == 0:
    for line in done:
        print(line)
"""


def test_mpi4py_send_recv_and_allreduce_under_mpiexec(tmp_path):
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    assert os.path.exists(mpiexec), "tests/requirements*.txt install mpich, which has mpiexec"
    script = tmp_path / "mpi_run.py"
    script.write_text(MPI)
    launcher = f"""
import subprocess, sys
r = subprocess.run([{mpiexec!r}, "-n", "2", sys.executable, {str(script)!r}],
                   capture_output=True, text=True, timeout=100)
sys.stdout.write(r.stdout)
sys.stderr.write(r.stderr)
sys.exit(r.returncode)
"""
    out = run_script(tmp_path, "mpi_launch", launcher, timeout=150)
    assert sorted(out.splitlines()) == ["ok 0", "ok 1"], out
