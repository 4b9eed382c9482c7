"""Requests per second of examples/serve (Go net/http, the model in embedded CPython)
against Python servers doing the same, at 1, 8 and 64 keep-alive clients:

  ThreadingHTTPServer   the standard library's, a thread per connection, Nagle's
                        algorithm off (disable_nagle_algorithm, as a server of small
                        keep-alive responses sets it; Go's net/http sets TCP_NODELAY)
  uvicorn + Starlette   an ASGI app as its users deploy one: uvicorn with uvloop and
                        httptools (uvicorn[standard]), one worker process (the Go server
                        is one process too), the model called off the event loop

Each batches requests in one place (up to --batch rows, waiting at most --wait ms for
more) and makes one model call per batch, the same model.py.

    python bench/bench_serve.py [--seconds 10] [--clients 1,8,64] [--batch 64] [--wait 2]

The servers run on loopback in turn, loaded by the same client: --clients threads in
two processes (one for a single client), each with a keep-alive connection (HTTP/1.1),
posting {"x": [16 numbers]} for --seconds. Needs the Go toolchain (the server is built
after `eval "$(python -m godlpack go-env --embed)"`), torch, and the uvicorn baseline's
pins: `pip install -r bench/requirements-serve.txt`. Prints the rates and the ratios
Go / each; on a shared 2-core machine the client takes a core of its own share, so read
the ratios rather than the rates.
"""

from __future__ import annotations

import argparse
import http.client
import http.server
import importlib.util
import json
import multiprocessing
import os
import queue
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL_PY = os.path.join(REPO, "examples", "serve", "model.py")
BODY = json.dumps({"x": [0.25 * i for i in range(16)]}).encode()


def python_server(port: int, batch: int, wait: float) -> None:
    import torch

    spec = importlib.util.spec_from_file_location("model", MODEL_PY)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    net = mod.model()
    pending: queue.Queue[tuple[list[float], queue.Queue[list[float]]]] = queue.Queue()

    def batcher() -> None:
        while True:
            reqs = [pending.get()]
            deadline = time.monotonic() + wait
            while len(reqs) < batch:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                try:
                    reqs.append(pending.get(timeout=left))
                except queue.Empty:
                    break
            x = torch.tensor([r[0] for r in reqs], dtype=torch.float32)
            with torch.no_grad():
                y = net(x).tolist()
            for (_, reply), row in zip(reqs, y, strict=True):
                reply.put(row)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # as anyone serving small keep-alive responses sets it: with Nagle's algorithm on,
        # each response waits ~40 ms for the client's delayed ACK, which alone capped this
        # baseline at a twelfth of Go's net/http (which sets TCP_NODELAY by default)
        disable_nagle_algorithm = True

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            status, answer = 200, {}
            try:
                x = json.loads(body)["x"]
                if len(x) != 16:
                    raise ValueError(f"x has {len(x)} numbers, the model takes 16")
                reply: queue.Queue[list[float]] = queue.Queue(1)
                pending.put(([float(v) for v in x], reply))
                answer = {"y": reply.get()}
            except (ValueError, KeyError, TypeError) as e:
                status, answer = 400, {"error": str(e)}
            out = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *args: object) -> None:
            pass

    class Server(http.server.ThreadingHTTPServer):
        request_queue_size = 1024  # the default 5 resets clients connecting at once

    threading.Thread(target=batcher, daemon=True).start()
    Server(("127.0.0.1", port), Handler).serve_forever()


def asgi_server(port: int, batch: int, wait: float) -> None:
    """The same model and batching as an ASGI app under uvicorn (uvloop, httptools): the
    requests of a batch wait on futures, and the batch runs in a worker thread (torch
    releases the GIL while it computes), so the event loop goes on parsing requests."""
    import asyncio
    import contextlib
    from collections.abc import AsyncIterator

    import torch
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    spec = importlib.util.spec_from_file_location("model", MODEL_PY)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    net = mod.model()
    pending: asyncio.Queue[tuple[list[float], asyncio.Future[list[float]]]] | None = None

    def run_model(rows: list[list[float]]) -> list[list[float]]:
        with torch.no_grad():
            return net(torch.tensor(rows, dtype=torch.float32)).tolist()

    async def batcher() -> None:
        assert pending is not None
        loop = asyncio.get_running_loop()
        while True:
            reqs = [await pending.get()]
            deadline = loop.time() + wait
            while len(reqs) < batch:
                left = deadline - loop.time()
                if left <= 0:
                    break
                try:
                    reqs.append(await asyncio.wait_for(pending.get(), left))
                except TimeoutError:
                    break
            y = await asyncio.to_thread(run_model, [r[0] for r in reqs])
            for (_, fut), row in zip(reqs, y, strict=True):
                fut.set_result(row)

    async def predict(request: Request) -> JSONResponse:
        assert pending is not None
        try:
            x = (await request.json())["x"]
            if len(x) != 16:
                raise ValueError(f"x has {len(x)} numbers, the model takes 16")
            fut: asyncio.Future[list[float]] = asyncio.get_running_loop().create_future()
            await pending.put(([float(v) for v in x], fut))
            return JSONResponse({"y": await fut})
        except (ValueError, KeyError, TypeError) as e:
            return JSONResponse({"error": str(e)}, status_code=400)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        nonlocal pending
        pending = asyncio.Queue()
        task = asyncio.create_task(batcher())
        yield
        task.cancel()

    app = Starlette(routes=[Route("/predict", predict, methods=["POST"])], lifespan=lifespan)
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        loop="uvloop",
        http="httptools",
        log_level="warning",
        access_log=False,
        backlog=1024,
    )


def client_proc(port: int, threads: int, seconds: float, out: multiprocessing.Queue) -> None:
    stop = time.monotonic() + seconds
    counts = [0] * threads

    def run(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while time.monotonic() < stop:
            try:
                conn.request("POST", "/predict", BODY, {"Content-Type": "application/json"})
                r = conn.getresponse()
                r.read()
            except OSError:  # counted as a failure; a new connection for the next
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                continue
            if r.status == 200:
                counts[i] += 1

    ts = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out.put(sum(counts))


def load(port: int, clients: int, seconds: float) -> float:
    out: multiprocessing.Queue = multiprocessing.Queue()
    split = [clients // 2, clients - clients // 2] if clients > 1 else [1]
    procs = [
        multiprocessing.Process(target=client_proc, args=(port, n, seconds, out)) for n in split
    ]
    t0 = time.monotonic()
    for p in procs:
        p.start()
    total = sum(out.get() for _ in procs)
    for p in procs:
        p.join()
    return total / (time.monotonic() - t0)


def wait_port(port: int, proc: subprocess.Popen[bytes] | multiprocessing.Process) -> None:
    deadline = time.monotonic() + 300
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            alive = proc.poll() is None if isinstance(proc, subprocess.Popen) else proc.is_alive()
            if not alive or time.monotonic() > deadline:
                sys.exit(f"server on {port} did not start")
            time.sleep(0.2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rates(port: int, clients: list[int], seconds: float) -> dict[int, float]:
    """The server's requests per second at each number of clients, after a warm-up."""
    load(port, max(clients), 1)
    return {n: load(port, n, seconds) for n in clients}


def python_rates(target, args: argparse.Namespace, clients: list[int]) -> dict[int, float]:  # type: ignore[no-untyped-def]
    port = free_port()
    proc = multiprocessing.Process(
        target=target, args=(port, args.batch, args.wait / 1000), daemon=True
    )
    proc.start()
    try:
        wait_port(port, proc)
        return rates(port, clients, args.seconds)
    finally:
        proc.terminate()
        proc.join()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--clients", default="1,8,64", help="comma-separated client counts")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--wait", type=float, default=2, help="milliseconds")
    args = ap.parse_args()
    clients = [int(n) for n in args.clients.split(",")]
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
        import uvloop  # noqa: F401
    except ImportError as e:
        sys.exit(f"{e}: the uvicorn baseline needs pip install -r bench/requirements-serve.txt")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (os.path.join(REPO, "pyext"), env.get("PYTHONPATH")) if p
    )
    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "serve")
        go_env = f"{shlex.quote(sys.executable)} -m godlpack go-env --embed"
        subprocess.run(
            ["bash", "-c", f'eval "$({go_env})" && go build -o {binary} ./examples/serve'],
            cwd=REPO,
            env=env,
            check=True,
        )
        port = free_port()
        go = subprocess.Popen(
            [
                binary,
                "-addr",
                f"127.0.0.1:{port}",
                "-python",
                sys.executable,
                "-batch",
                str(args.batch),
                "-wait",
                f"{args.wait}ms",
            ],
            env=env,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_port(port, go)
            go_rates = rates(port, clients, args.seconds)
        finally:
            go.terminate()
            go.wait()
    threading_rates = python_rates(python_server, args, clients)
    asgi_rates = python_rates(asgi_server, args, clients)
    print(f"requests/s, {args.seconds:g} s each, batch {args.batch}, wait {args.wait:g} ms")
    head = ("clients", "Go serve", "Threading", "uvicorn", "Go/Thr", "Go/uvi")
    print("{:>7} {:>9} {:>10} {:>9} {:>7} {:>7}".format(*head))
    for n in clients:
        g, t, u = go_rates[n], threading_rates[n], asgi_rates[n]
        print(f"{n:>7} {g:>9.0f} {t:>10.0f} {u:>9.0f} {g / t:>6.2f}x {g / u:>6.2f}x")


if __name__ == "__main__":
    main()
