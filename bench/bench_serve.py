"""Requests per second of examples/serve (Go net/http, the model in embedded CPython)
against a Python server doing the same: the standard library's ThreadingHTTPServer,
requests batched by one thread (up to --batch rows, waiting at most --wait ms for
more), one model call per batch, the same model.py.

    python bench/bench_serve.py [--seconds 10] [--clients 64] [--batch 64] [--wait 2]

Both servers run on loopback in turn, loaded by the same client: --clients threads in
two processes, each with a keep-alive connection (HTTP/1.1 on both servers), posting
{"x": [16 numbers]} for --seconds. Needs the Go toolchain (the server is built after
`eval "$(python -m godlpack go-env --embed)"`) and torch. Prints both rates and their
ratio; on a shared 2-core machine the client takes a core of its own share, so read
the ratio rather than the rates.
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
    procs = [
        multiprocessing.Process(target=client_proc, args=(port, clients // 2, seconds, out))
        for _ in range(2)
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--wait", type=float, default=2, help="milliseconds")
    args = ap.parse_args()
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
            load(port, args.clients, 1)  # warm-up
            go_rate = load(port, args.clients, args.seconds)
        finally:
            go.terminate()
            go.wait()
    port = free_port()
    py = multiprocessing.Process(
        target=python_server, args=(port, args.batch, args.wait / 1000), daemon=True
    )
    py.start()
    try:
        wait_port(port, py)
        load(port, args.clients, 1)
        py_rate = load(port, args.clients, args.seconds)
    finally:
        py.terminate()
        py.join()
    print(f"examples/serve (Go net/http, embedded CPython): {go_rate:8.0f} requests/s")
    print(f"ThreadingHTTPServer (Python, same batching):      {py_rate:8.0f} requests/s")
    print(f"ratio Go / Python: {go_rate / py_rate:.2f}x")


if __name__ == "__main__":
    main()
