"""examples/serve: the Go net/http server that runs model.py's PyTorch model in its
embedded interpreter. Built as the README says (after the go-env eval), started on a
loopback port from another folder, sent 200 concurrent requests whose answers are
checked against the same model run here; malformed and wrong-length bodies get 400
and a JSON error, and the server keeps serving."""

from __future__ import annotations

import concurrent.futures
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
import torch
from _embed import REPO, env, with_go_env

MODEL_PY = os.path.join(REPO, "examples", "serve", "model.py")


def _model() -> torch.nn.Module:
    spec = importlib.util.spec_from_file_location("serve_model", MODEL_PY)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.model()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _post(url: str, body: bytes) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    out = tmp_path_factory.mktemp("serve")
    binary = out / "serve"
    r = subprocess.run(
        ["bash", "-c", with_go_env(f"go build -o {binary} ./examples/serve")],
        cwd=REPO,
        env=env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, f"go build failed:\n{r.stdout}\n{r.stderr}"
    port = _free_port()
    e = env()
    e.pop("LD_LIBRARY_PATH", None)  # the binary finds libpython by its rpath
    log = open(out / "serve.log", "w+")
    proc = subprocess.Popen(
        [str(binary), "-addr", f"127.0.0.1:{port}", "-python", sys.executable, "-batch", "32"],
        cwd=out,  # any folder: model.py is compiled into the binary
        env=e,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 240
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                log.seek(0)
                pytest.fail(f"serve did not start (exit {proc.poll()}):\n{log.read()}")
            time.sleep(0.2)
    yield f"http://127.0.0.1:{port}/predict", proc, log
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    log.close()


def test_200_concurrent_requests_match_the_model(server):
    url, _, _ = server
    gen = torch.Generator().manual_seed(7)
    rows = torch.randn(200, 16, generator=gen)
    with torch.no_grad():
        want = _model()(rows)

    def one(i: int) -> tuple[int, dict]:
        return _post(url, json.dumps({"x": rows[i].tolist()}).encode())

    with concurrent.futures.ThreadPoolExecutor(max_workers=200) as pool:
        answers = list(pool.map(one, range(200)))
    for i, (status, body) in enumerate(answers):
        assert status == 200, (i, body)
        got = torch.tensor(body["y"])
        assert got.shape == (4,)
        torch.testing.assert_close(got, want[i], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "body, says",
    [
        (b"not json", "malformed JSON"),
        (b'{"x": [1, 2, 3]}', "x has 3 numbers, the model takes 16"),
        (b'{"y": []}', '{"x": [16 numbers]}'),
        (b'{"x": ["a"]}', "malformed JSON"),
        (b"", "malformed JSON"),
    ],
)
def test_bad_requests_get_400_and_the_server_keeps_serving(server, body, says):
    url, proc, _ = server
    status, answer = _post(url, body)
    assert status == 400
    assert says in answer["error"]
    status, answer = _post(url, json.dumps({"x": [0.5] * 16}).encode())
    assert status == 200 and len(answer["y"]) == 4
    assert proc.poll() is None


def test_sigterm_stops_it_cleanly(server):
    _, proc, log = server
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=120) == 0
    log.seek(0)
    assert "serving on" in log.read()
