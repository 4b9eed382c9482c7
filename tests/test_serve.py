"""examples/serve: the Go net/http server that runs model.py's PyTorch model in its
embedded interpreter. Built as docs/embedding.md says (after the go-env eval), started on a
loopback port from another folder, sent 200 concurrent requests whose answers are
checked against the same model run here; malformed and wrong-length bodies and inputs
outside float32 get 400 and a JSON error, an output JSON cannot carry a 500 and a JSON
error, and the server keeps serving. Slow clients are cut off by its read timeouts, and
SIGTERM answers every request in flight before the process exits 0."""

from __future__ import annotations

import concurrent.futures
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
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


def _post_raw(url: str, body: bytes) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _post(url: str, body: bytes) -> tuple[int, dict]:
    status, raw = _post_raw(url, body)
    return status, json.loads(raw)


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    out = tmp_path_factory.mktemp("serve-build")
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
    return binary


def _start(binary, folder, *flags: str):
    """Starts the server on a free loopback port, run from folder, and waits until it
    accepts connections; returns its URL, process and log (a file, stdout and stderr)."""
    port = _free_port()
    e = env()
    e.pop("LD_LIBRARY_PATH", None)  # the binary finds libpython by its rpath
    log = open(folder / "serve.log", "w+")
    proc = subprocess.Popen(
        [str(binary), "-addr", f"127.0.0.1:{port}", "-python", sys.executable, *flags],
        cwd=folder,  # any folder: model.py is compiled into the binary
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
    return f"http://127.0.0.1:{port}/predict", proc, log


def _stop(proc, log) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    log.close()


@pytest.fixture(scope="module")
def server(binary, tmp_path_factory):
    url, proc, log = _start(binary, tmp_path_factory.mktemp("serve"), "-batch", "32")
    yield url, proc, log
    _stop(proc, log)


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


@pytest.mark.parametrize("i, value", [(0, 1e39), (5, -1e39), (15, 3.5e38)])
def test_input_outside_float32_is_400(server, i, value):
    """Finite in float64 (what JSON numbers decode to), infinite as the model's float32:
    a 400 naming the element, not a model call on inf."""
    url, proc, _ = server
    x = [0.5] * 16
    x[i] = value
    status, answer = _post(url, json.dumps({"x": x}).encode())
    assert status == 400, answer
    assert f"x[{i}] = {value:g} is outside float32's range" in answer["error"]
    status, answer = _post(url, json.dumps({"x": [3e38] * 16}).encode())  # in range
    assert status in (200, 500) and proc.poll() is None


def test_non_finite_output_is_a_500_json_error(server):
    """Inputs near float32's largest overflow the model's float32 layers: an output JSON
    cannot carry (inf or NaN) is a 500 with a JSON error, never a 200 without the
    answer."""
    url, proc, _ = server
    x = [3e38] * 16
    with torch.no_grad():
        want = _model()(torch.tensor([x], dtype=torch.float32))
    assert not torch.isfinite(want).all(), want  # what this test is about
    status, raw = _post_raw(url, json.dumps({"x": x}).encode())
    assert status == 500, (status, raw)
    assert "the model's output is not finite" in json.loads(raw)["error"]
    status, answer = _post(url, json.dumps({"x": [0.5] * 16}).encode())
    assert status == 200 and len(answer["y"]) == 4
    assert proc.poll() is None


def _read_response(sock: socket.socket) -> bytes:
    """What the server sends on sock until it closes it (or resets it)."""
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def test_slow_clients_are_cut_off_by_the_read_timeouts(binary, tmp_path):
    """A client that never finishes its headers, or its body, does not hold a connection
    for ever: the headers' and the whole request's timeouts (-read-timeout, 30 s by
    default, at most 60) close it, a late body with a 408 and a JSON error."""
    usage = subprocess.run([str(binary), "-h"], capture_output=True, text=True, timeout=60)
    default = usage.stderr.split("-read-timeout duration", 1)[1].split("(default ", 1)[1]
    assert default.startswith("30s)"), usage.stderr
    url, proc, log = _start(binary, tmp_path, "-read-timeout", "2s")
    port = int(url.split(":")[2].split("/")[0])
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=60) as slow_headers:
            t0 = time.monotonic()
            slow_headers.sendall(b"POST /predict HTTP/1.1\r\nHost: x\r\n")  # no blank line
            _read_response(slow_headers)
            assert time.monotonic() - t0 < 30
        with socket.create_connection(("127.0.0.1", port), timeout=60) as slow_body:
            t0 = time.monotonic()
            slow_body.sendall(
                b"POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b'Content-Length: 200\r\n\r\n{"x": [0.5, '
            )
            answer = _read_response(slow_body)
            assert time.monotonic() - t0 < 30
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408 "), answer
        assert "-read-timeout" in json.loads(body)["error"]
        status, answer = _post(url, json.dumps({"x": [0.5] * 16}).encode())
        assert status == 200 and len(answer["y"]) == 4
    finally:
        _stop(proc, log)


def test_sigterm_answers_every_request_in_flight(binary, tmp_path):
    """SIGTERM while requests wait in the batcher (-wait 5s), and while one's body is
    still arriving: each is answered with the model's output, then the process exits 0
    (Finalize after the batcher's last batch, not under it)."""
    url, proc, log = _start(binary, tmp_path, "-batch", "64", "-wait", "5s")
    port = int(url.split(":")[2].split("/")[0])
    gen = torch.Generator().manual_seed(11)
    rows = torch.randn(13, 16, generator=gen)
    with torch.no_grad():
        want = _model()(rows)
    answers: dict[int, tuple[int, dict, float]] = {}

    def one(i: int) -> None:
        try:
            status, body = _post(url, json.dumps({"x": rows[i].tolist()}).encode())
        except Exception as e:  # noqa: BLE001  (a dropped request: reported below)
            status, body = -1, {"error": repr(e)}
        answers[i] = (status, body, time.monotonic())

    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    try:
        for t in threads:
            t.start()
        late = socket.create_connection(("127.0.0.1", port), timeout=60)
        body = json.dumps({"x": rows[12].tolist()}).encode()
        late.sendall(
            b"POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body[:10]
        )
        time.sleep(1.5)  # the requests reach their handlers; the batcher waits for more
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        late.sendall(body[10:])
        late_answer = _read_response(late)
        late.close()
        for t in threads:
            t.join(timeout=120)
        assert proc.wait(timeout=120) == 0
    finally:
        _stop(proc, log)
    for i in range(12):
        status, body, when = answers[i]
        assert status == 200, (i, body)
        torch.testing.assert_close(torch.tensor(body["y"]), want[i], rtol=1e-5, atol=1e-5)
        assert when > signalled  # answered after the signal: it was in flight
    head, _, body = late_answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 "), late_answer
    torch.testing.assert_close(torch.tensor(json.loads(body)["y"]), want[12], rtol=1e-5, atol=1e-5)


def test_sigterm_stops_it_cleanly(server):
    _, proc, log = server
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=120) == 0
    log.seek(0)
    assert "serving on" in log.read()
