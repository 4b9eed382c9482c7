"""fork with extensions written in Go loaded: each extension is a c-shared library with
its own Go runtime, which must survive os.fork() as godlpack's does (internal/forksafe:
prepare.go, hooks.c, idle_ms.go; docs/internals/fork.md).

Every library registers its own fork hooks, so an extension's runtime goes into a
child with its collector off, as godlpack's: a child's calls that allocate far past
the collector's goal in an extension's runtime no longer hang (they did in every run
before). And each runtime's child hook forgets the parent's idle threads
(idle_ms.go): a child's call that starts goroutines used to hand them, and its
own P, to an idle thread of the parent's that fork() did not copy, and never returned
(every child hung at its first goext.sum).

Each scenario runs as a script in a fresh interpreter (conftest.run_script): a child
that hangs is killed by the script after a deadline and reported with its stacks, and
the script itself has a timeout, so a hang fails the test instead of blocking it."""

from __future__ import annotations

import textwrap

import pytest
from conftest import HUNG_CHILD_STACKS, run_script
from goext_build import folder

# What every scenario shares: both extensions and godlpack loaded (three Go runtimes),
# the calls a child makes, and a wait for a child that reports a hang instead of
# waiting for ever.
COMMON = """
import os, shutil, signal, subprocess, sys, threading, time, warnings
sys.path[:0] = [{goext!r}, {goext2!r}]
import numpy as np
import godlpack as g
import goext, goext2

# fork with threads alive is what these scenarios test (3.12+ warns about it).
warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork")

X = np.ones(10**6)                       # sum: 10**6 float64, several goroutines
S = np.arange(300_000, dtype=np.float32)  # scale, scale_: ~300k values
A = np.full((300, 300), 0.5)              # matmul 300x300 (gonum, goroutines)

def calls():
    # Each call runs goroutines in one of the two extensions' runtimes, or in godlpack's.
    assert goext.sum(X) == 1e6
    assert np.from_dlpack(goext.scale(S, 2.0))[-1] == 2.0 * 299_999
    mine = S.copy()
    goext.scale_(mine, 3.0)
    assert mine[-1] == 3.0 * 299_999
    assert float(np.from_dlpack(goext.matmul(A, A))[0, 0]) == 75.0
    assert goext.sum(goext2.ramp(1000, 1.0)) == 499500.0
    assert g.arange(4).tolist() == [0, 1, 2, 3]

{hung_child_stacks}
def wait(pid, limit=30):
    # The child's exit code, or "hung" (killed) after limit seconds: generous on a
    # loaded 2-core machine, where each child takes well under a second.
    end = time.monotonic() + limit
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.01)
    print("hung child", pid, stacks(pid), file=sys.stderr)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return "hung"

def fork_and_call(work=calls):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            work()
        except BaseException as e:
            print("child failed:", repr(e), flush=True)
            code = 1
        os._exit(code)
    return wait(pid)
"""


def scenario(tmp_path, name: str, body: str, timeout: float = 240) -> list[str]:
    common = COMMON.format(
        goext=folder("goext"), goext2=folder("goext2"), hung_child_stacks=HUNG_CHILD_STACKS
    )
    return run_script(tmp_path, name, common + textwrap.dedent(body), timeout).split()


# For the scripts that fork under a before hook of their own (which must be registered
# before the Go libraries are imported, so not COMMON's): fork_children(forks, limit)
# forks children one at a time, each summing X in goext's goroutines and making an
# Array, and prints "forks N all returned", or "fork i hung" at the first child that has
# not returned within limit seconds (its stacks on stderr, then killed).
FORK_CHILDREN = (
    HUNG_CHILD_STACKS
    + """
def fork_children(forks, limit):
    for i in range(forks):
        pid = os.fork()
        if pid == 0:
            ok = goext.sum(X) == X.size and g.arange(4).tolist() == [0, 1, 2, 3]
            os._exit(0 if ok else 1)
        end = time.monotonic() + limit
        while time.monotonic() < end:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                assert os.waitstatus_to_exitcode(status) == 0, status
                break
            time.sleep(0.002)
        else:
            print("hung child", stacks(pid), file=sys.stderr)
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            print("fork", i, "hung")
            return
    print("forks", forks, "all returned")
"""
)


def test_child_allocates_past_the_collectors_goal_in_each_runtime(tmp_path):
    # ~20 MB of Go garbage in each extension's runtime per child (the collector's
    # first goal is 4 MB): before each library registered its hooks, the first
    # collection of an extension's runtime in the child never ended.
    out = scenario(
        tmp_path,
        "child_allocates",
        """
        x = np.ones(10)
        def allocate():
            for _ in range(100_000):
                assert goext.describe(x) == ("float64", (10,), False)
                assert goext2.keep_none() != ""
            for _ in range(2_000):
                try:
                    goext.fail("no" * 100)
                except ValueError:
                    pass
            assert g.arange(4).tolist() == [0, 1, 2, 3]
        allocate()  # the parent too: its collector runs before the fork
        results = [fork_and_call(allocate) for _ in range(2)]
        def nested():
            allocate()
            assert fork_and_call(allocate) == 0
        results.append(fork_and_call(nested))
        allocate()  # the parent's collectors are back on
        print(*results)
        """,
    )
    assert out == ["0"] * 3


def test_goroutines_in_a_fork_child_quick(tmp_path):
    # The short form of the scenarios below: one child, 15 s (it hung, every time,
    # before the child forgot the parent's idle threads).
    out = scenario(
        tmp_path,
        "child_goroutines",
        """
        assert goext.sum(X) == 1e6
        pid = os.fork()
        if pid == 0:
            os._exit(0 if goext.sum(X) == 1e6 else 1)
        print(wait(pid, limit=15))
        """,
        timeout=120,
    )
    assert out == ["0"]


def test_timers_on_goroutines_in_a_fork_child(tmp_path):
    # Goroutines that sleep (the runtime's timers, which the parent's vanished threads
    # were waiting for), in a child and in a child's child. Not runtime.GC: a child
    # that forces collections (goext2.churn) after such timers hung in about 1 run in
    # 3 (the first child; the collector is off in a child for good: prepare.go).
    out = scenario(
        tmp_path,
        "child_timers",
        """
        def work():
            assert goext2.naps(4, 1000) == 4
            assert goext2.naps(1, 50_000) == 1
            assert goext.sum(X) == 1e6
        work()
        def nested():
            work()
            assert fork_and_call(work) == 0
            work()
        results = [fork_and_call(work), fork_and_call(nested)]
        work()
        print(*results)
        """,
    )
    assert out == ["0"] * 2


def test_timers_in_a_fork_child_while_a_parent_thread_sleeps_in_go(tmp_path):
    # A thread of the parent waits in goext2 for a goroutine's 60 s timer during the
    # forks: an M of goext2's runtime waits in the network poller until then, which the
    # quiet wait does not count as parked, so each fork goes ahead after its 500 ms
    # limit with that M in the poller. The child's runtime then said an M was polling,
    # none of its own ever did, and nothing ran its timers: its first goext2.naps never
    # returned (5 children of 5, before the runtime's fork repair). The children end
    # long before the parent's timer is due (a child that outlives it: the next test).
    out = scenario(
        tmp_path,
        "child_timers_sleeper",
        """
        def work():
            assert goext2.naps(8, 200) == 8
            calls()
        sleeper = threading.Thread(target=goext2.naps, args=(1, 60_000_000), daemon=True)
        sleeper.start()
        time.sleep(0.2)  # it now waits in Go (GIL released) for its goroutine's timer
        results = [fork_and_call(work) for _ in range(5)]
        print(*results, flush=True)
        os._exit(0)  # not waiting 60 s for the sleeper (nor finalizing beside it)
        """,
    )
    assert out == ["0"] * 5


def test_a_fork_childs_runtimes_poll_on_their_own_epoll_instances(tmp_path):
    # fork() copies descriptors, not instances: a child's Go runtimes waited in the
    # parent's epoll instances, where a parent's thread waiting there took the child's
    # wake-ups (its poller then slept until a parent's timer: 2 hung children in 100 of
    # the sleeping-thread scenario above, beside two busy loops, with lastpoll reset
    # alone). The runtime's fork repair gives each its own: each runtime's eventfd, the
    # poller's wake-up, is a new one in the child.
    out = scenario(
        tmp_path,
        "child_poller",
        """
        def eventfds():
            # eventfd-id of each eventfd open here (the Go runtimes' wake-ups)
            ids = set()
            for fd in os.listdir("/proc/self/fd"):
                try:
                    if os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:[eventfd]":
                        with open(f"/proc/self/fdinfo/{fd}") as info:
                            ids |= {l.split()[1] for l in info if l.startswith("eventfd-id")}
                except OSError:
                    pass
            return ids
        calls()
        assert goext2.naps(2, 100) == 2
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.write(w, " ".join(sorted(eventfds())).encode())
            ok = goext2.naps(4, 200) == 4
            os._exit(0 if ok else 1)
        os.close(w)
        child = set(os.read(r, 4096).decode().split())
        assert wait(pid) == 0
        parent = eventfds()
        print(len(parent), len(child), len(parent & child))
        """,
    )
    assert out[2] == "0" and out[0] == out[1] == "3", out


@pytest.mark.slow  # 3 forks, each child living past a 1.5 s timer of the parent
def test_a_parents_locked_goroutine_readied_in_the_child_never_runs(tmp_path):
    # A thread of the parent waits in goext2 for a goroutine's 1.5 s timer at each fork;
    # each child lives past it. The timer fires in the child too and readies the Go
    # call the parent's thread waits in, a goroutine locked to that thread's M, whose
    # thread the child does not have: the scheduler handed it the P that would run it,
    # and the child's next stop of the world (goext2.ramp's runtime.GC) waited for
    # that P for ever (5 of 5 children hung before the runtime's startlockedm patch).
    # Three children of ~2.7 s each (was five of ~4.2 s): the test runs on six CPythons.
    out = scenario(
        tmp_path,
        "child_outlives_parent_timer",
        """
        def work():
            assert goext2.naps(2, 200) == 2
            time.sleep(2.5)  # past the parent's timer (1.3 s after the fork)
            assert goext.sum(goext2.ramp(1000, 1.0)) == 499500.0
        results = []
        for _ in range(3):
            sleeper = threading.Thread(target=goext2.naps, args=(1, 1_500_000))
            sleeper.start()
            time.sleep(0.2)  # it now waits in Go (GIL released) for its goroutine's timer
            results.append(fork_and_call(work))
            sleeper.join()
        print(*results)
        """,
    )
    assert out == ["0"] * 3


def test_locked_goroutine_starts_goroutines_in_a_fork_child(tmp_path):
    # A goroutine locked to its thread that starts others: the runtime makes the
    # threads a locked thread asks for on its template thread, which a fork child
    # does not have until the runtime's fork repair starts its own. 20 calls in each
    # of 10 children and in a child's child (5 of 5 grandchildren hung without it).
    out = scenario(
        tmp_path,
        "child_locked",
        """
        def work():
            for _ in range(20):
                assert goext2.locked_spawn(4) == 4 * 50_000
        work()
        def nested():
            work()
            assert fork_and_call(work) == 0
        results = [fork_and_call(work) for _ in range(10)] + [fork_and_call(nested)]
        work()
        print(*results)
        """,
    )
    assert out == ["0"] * 11


@pytest.mark.slow  # 200 fork workers summing 32 MB arrays
def test_many_fork_workers_each_summing_a_big_array(tmp_path):
    # DataLoader-style: 200 short-lived fork workers, two at a time, each summing a
    # 32 MB array on goroutines (and a fresh array of its own), while the parent goes on
    # calling goext between forks.
    out = scenario(
        tmp_path,
        "many_forks",
        """
        BIG = np.ones(4 * 10**6)
        def worker(i):
            assert goext.sum(BIG) == 4e6
            assert goext.sum(np.full(10**6, float(i))) == 1e6 * i
        codes, live = [], []
        for i in range(200):
            goext.sum(X)
            pid = os.fork()
            if pid == 0:
                try:
                    worker(i)
                except BaseException as e:
                    print("child failed:", repr(e), flush=True)
                    os._exit(1)
                os._exit(0)
            live.append(pid)
            if len(live) == 2:
                codes.append(wait(live.pop(0)))
        codes += [wait(pid) for pid in live]
        assert goext.sum(BIG) == 4e6
        print(len(codes), sorted(set(map(str, codes))))
        """,
        timeout=480,
    )
    assert out == ["200", "['0']"]


def test_new_threads_of_a_fork_child_call_goext(tmp_path):
    # The parent's threads call every runtime and exit (leaving their Ms on the spare
    # list, with Ps and preemption requests), then the child's own new threads do:
    # each entering thread takes such an M, and its goroutines need new threads.
    out = scenario(
        tmp_path,
        "child_threads",
        """
        def work(errors):
            try:
                for _ in range(200):
                    g.arange(100).reshape(10, 10).tolist()
                calls()
            except BaseException as e:
                errors.append(e)
        def threads():
            errors = []
            ts = [threading.Thread(target=work, args=(errors,)) for _ in range(4)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            assert not errors, errors
        results = []
        for _ in range(5):
            threads()
            results.append(fork_and_call(threads))
        print(*results)
        """,
    )
    assert out == ["0"] * 5


def test_goroutines_in_a_fork_child_after_the_parent_ran_them(tmp_path):
    out = scenario(
        tmp_path,
        "child_calls",
        """
        calls()  # the parent has run goroutines in every runtime before forking
        results = [fork_and_call() for _ in range(3)]
        # each function alone too, first thing in the child
        for f in (lambda: goext.sum(X), lambda: goext.scale(S, 2.0),
                  lambda: goext.scale_(S.copy(), 2.0), lambda: goext.matmul(A, A)):
            results.append(fork_and_call(f))
        # a fork of a fork child, calling in both generations
        def nested():
            calls()
            assert fork_and_call() == 0
            calls()
        results.append(fork_and_call(nested))
        calls()  # and the parent goes on
        print(*results)
        """,
    )
    assert out == ["0"] * 8


def test_multiprocessing_fork_pool_maps_goext(tmp_path):
    out = scenario(
        tmp_path,
        "fork_pool",
        """
        import multiprocessing as mp

        def task(i):
            calls()
            return goext.sum(np.full(10**6, float(i))), os.getpid()

        if __name__ == "__main__":
            calls()
            with mp.get_context("fork").Pool(2) as pool:
                res = pool.map_async(task, range(12), chunksize=1).get(timeout=120)
                res += pool.map_async(task, range(12, 16)).get(timeout=120)  # used workers
            assert [s for s, _ in res] == [1e6 * i for i in range(16)], res
            assert os.getpid() not in {p for _, p in res}
            calls()
            print("ok", len(res))
        """,
    )
    assert out == ["ok", "16"]


def test_fork_from_a_thread_while_another_calls_goext(tmp_path):
    out = scenario(
        tmp_path,
        "fork_beside_calls",
        """
        stop = threading.Event()
        def busy():
            # Go calls right up to (and during) each fork: sum and scale release
            # the GIL and run goroutines, spin keeps a thread in Go for 1 ms.
            while not stop.is_set():
                goext.sum(X)
                goext.scale(S, 2.0)
                goext.spin(0.001)
                goext2.ramp(10_000, 1.0)
        results = []
        def forker():
            for _ in range(10):
                results.append(fork_and_call())
        busy_threads = [threading.Thread(target=busy) for _ in range(2)]
        for t in busy_threads:
            t.start()
        time.sleep(0.1)
        t = threading.Thread(target=forker)
        t.start()
        t.join()
        stop.set()
        for b in busy_threads:
            b.join()
        calls()
        print(*results)
        """,
    )
    assert out == ["0"] * 10


@pytest.mark.slow  # 300 forks
def test_python_before_hook_runs_go_after_the_runtimes_went_quiet(tmp_path):
    # os.register_at_fork runs the before hooks newest first, so the hooks of modules
    # imported before godlpack (logging's, an application's) run after the runtimes
    # were made quiet, and before fork(): any that lets the GIL go or calls Go wakes a
    # runtime's threads again. Here a hook registered first calls goext.sum (goroutines
    # on several threads, which then go idle) right before each fork. Before the last
    # look moved into fork() itself (wait.c's pthread_atfork prepare), 5 of 200
    # children hung at their first Go call (CPython 3.15), as the CI stress's did
    # (tests/test_free_threading.py: other threads let in by the GIL).
    out = run_script(
        tmp_path,
        "late_hook",
        textwrap.dedent(
            """
            import os, sys, time, warnings
            warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork")
            late = {{}}
            # Registered before the Go libraries are imported: runs after their hooks.
            os.register_at_fork(before=lambda: late["sum"](late["x"]))
            sys.path[:0] = [{goext!r}]
            import numpy as np
            import godlpack as g
            import goext
            X = np.ones(10**6)
            late["sum"], late["x"] = goext.sum, X
            {fork_children}
            fork_children(300, limit=10)
            """
        ).format(goext=folder("goext"), fork_children=FORK_CHILDREN),
        timeout=600,
    ).split()
    assert out == ["forks", "300", "all", "returned"], " ".join(out)


def test_a_preemption_request_left_on_the_forking_thread_is_dropped_in_the_child(tmp_path):
    # A stop of the world asks every running goroutine to yield; one that goes back to C
    # between its last stack check and the system-call state keeps the request and
    # honours it at its next Go call. The quiet wait's own stop of the world can leave
    # one so on the forking thread (CI: a child of the 10-thread stress hung, stack in
    # stoplockedm under gopreempt_m). In the child that yield came in the after-fork
    # hook's first Go, before the runtime's repair, and handed the thread's P to an idle
    # M of the parent's, whose thread is gone. forksafe's test hook leaves such a request
    # in the last Go call before each fork, in godlpack's runtime and goext's (a Python
    # before hook registered ahead of the Go libraries runs after theirs).
    out = run_script(
        tmp_path,
        "preempted_fork",
        textwrap.dedent(
            """
            import ctypes, os, sys, time, warnings
            warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork")
            hooks = []
            os.register_at_fork(before=lambda: [leave() for leave in hooks])
            sys.path[:0] = [{goext!r}]
            import numpy as np
            import godlpack as g
            import goext
            for lib in (g._godlpack.__file__, goext.__file__):
                hooks.append(ctypes.PyDLL(lib).goForkTestLeavePreemptRequest)
            X = np.ones(10**5)
            {fork_children}
            fork_children(10, limit=15)
            """
        ).format(goext=folder("goext"), fork_children=FORK_CHILDREN),
        timeout=300,
    ).split()
    assert out == ["forks", "10", "all", "returned"], " ".join(out)


@pytest.mark.slow  # 12 s of forks under CPU load
def test_fork_storm_with_three_go_runtimes_under_cpu_load(tmp_path):
    # As test_processes.py's storm, with goext and goext2 loaded: every child calls
    # each runtime's goroutines. Before each library registered its hooks, every child
    # hung at its first goext.sum; now none may (as godlpack's own storm, none is
    # tolerated since fork()'s own last look: internal/forksafe/wait.c).
    out = scenario(
        tmp_path,
        "storm",
        """
        burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
        SECONDS = 12
        Y = np.ones(300_000)
        def child():
            assert goext.sum(Y) == 300_000.0
            assert goext.sum(goext2.ramp(1000, 1.0)) == 499500.0
            assert g.arange(3).tolist() == [0, 1, 2]
        forks, hung, live = 0, 0, {}
        start = time.monotonic()
        try:
            while time.monotonic() - start < SECONDS or live:
                if len(live) < 2 and time.monotonic() - start < SECONDS:
                    goext.sum(Y)  # this thread has just been in each runtime
                    goext2.ramp(1000, 1.0)
                    g.arange(100).reshape(10, 10).tolist()
                    pid = os.fork()
                    if pid == 0:
                        try:
                            child()
                        except BaseException:
                            os._exit(1)
                        os._exit(0)
                    live[pid] = time.monotonic()
                    forks += 1
                    continue
                time.sleep(0.001)
                for pid, born in list(live.items()):
                    done, status = os.waitpid(pid, os.WNOHANG)
                    if done:
                        del live[pid]
                        assert os.waitstatus_to_exitcode(status) == 0, status
                    elif time.monotonic() - born > 60:  # a hang, not slowness
                        print("hung child", pid, stacks(pid), file=sys.stderr)
                        os.kill(pid, signal.SIGKILL)
                        os.waitpid(pid, 0)
                        del live[pid]
                        hung += 1
        finally:
            for b in burners:
                b.kill()
                b.wait()
        print("forks", forks, "hung", hung)
        """,
        timeout=300,
    )
    assert out[0] == "forks" and out[2] == "hung", out
    forks, hung = int(out[1]), int(out[3])
    assert forks >= 30, f"only {forks} forks: the storm did not run"
    assert hung == 0, f"{hung} of {forks} fork children hung"
