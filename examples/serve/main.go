//go:build godlpack_python

// Command serve answers POST /predict with a PyTorch model run in this process:
// CPython embedded in a Go net/http server. Concurrent requests are batched in Go (up
// to -batch rows, waiting at most -wait for more), and each batch goes to the model
// without a copy: a Go slice becomes a tensor.Tensor, a godlpack.Array in Python,
// and a torch.Tensor through torch.from_dlpack; the model's output comes back to Go
// the same way. SIGTERM or Ctrl-C stops it once every request accepted is answered.
//
//	eval "$(python -m godlpack go-env --embed)"
//	go build -o serve ./examples/serve
//	./serve -addr 127.0.0.1:8080 -python "$(command -v python)"
//	curl -d '{"x": [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}' 127.0.0.1:8080/predict
//	{"y":[...4 numbers...]}
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/pyembed"
)

// The model's source, beside this file; compiled into the binary, so the server
// runs from any folder.
//
//go:embed model.py
var modelSource string

const (
	inputs  = 16
	outputs = 4
)

type request struct {
	x     []float32
	reply chan []float32
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	python := flag.String("python", "", "the python executable whose torch to use (default: $GODLPACK_PYTHON, else python3)")
	batch := flag.Int("batch", 64, "most rows in one model call")
	wait := flag.Duration("wait", 2*time.Millisecond, "longest a request waits for others to join its batch")
	readTimeout := flag.Duration("read-timeout", 30*time.Second, "longest a client may take to send a request's headers and body")
	flag.Parse()
	if err := run(*addr, *python, *batch, *wait, *readTimeout); err != nil {
		log.Fatal(err)
	}
}

func run(addr, python string, batch int, wait, readTimeout time.Duration) error {
	if batch < 1 {
		return errors.New("-batch must be at least 1")
	}
	if readTimeout <= 0 {
		return errors.New("-read-timeout must be positive")
	}
	if err := pyembed.Start(pyembed.Config{Python: python}); err != nil {
		return err
	}
	defer pyembed.Finalize() // deferred first, so it runs last: after the batcher's end
	m, err := loadModel()
	if err != nil {
		return err
	}
	queue := make(chan request, 4*batch)
	done := make(chan struct{})
	go func() {
		batcher(m, queue, batch, wait)
		close(done)
	}()
	defer func() { close(queue); <-done }() // after Shutdown: no handler sends any more

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /predict", func(w http.ResponseWriter, r *http.Request) { predict(w, r, queue) })
	srv := &http.Server{
		Handler: mux,
		// A client that sends its request slowly, or never, would hold a connection and
		// its goroutine for ever: the headers must arrive within ReadHeaderTimeout, the
		// whole request (the body predict reads) within ReadTimeout.
		ReadHeaderTimeout: min(readTimeout, 10*time.Second),
		ReadTimeout:       readTimeout,
		IdleTimeout:       60 * time.Second, // a keep-alive connection between requests
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Printf("serving on %s (batches of up to %d rows, %v wait)", ln.Addr(), batch, wait)
	select {
	case err = <-served: // the listener failed
	case <-ctx.Done():
		stop() // a second signal ends the process at once
		log.Printf("shutting down: answering the requests in flight")
	}
	// Shutdown closes the listener and returns once every request accepted has been
	// answered (their handlers wait for the batcher, which still runs): only then may
	// the queue close and, the batcher done, Finalize run.
	if e := srv.Shutdown(context.Background()); err == nil {
		err = e
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// model is the Python side: model.py's model() and torch.from_dlpack.
type model struct {
	net, fromDLPack *godlpack.Object
}

// loadModel runs model.py as a module named model and calls its model().
func loadModel() (*model, error) {
	builtins, err := godlpack.Import("builtins")
	if err != nil {
		return nil, err
	}
	types, err := godlpack.Import("types")
	if err != nil {
		return nil, err
	}
	mod, err := types.CallMethod("ModuleType", "model")
	if err != nil {
		return nil, err
	}
	code, err := builtins.CallMethod("compile", modelSource, "model.py", "exec")
	if err != nil {
		return nil, err
	}
	ns, err := mod.Attr("__dict__")
	if err != nil {
		return nil, err
	}
	if _, err := builtins.CallMethod("exec", code, ns); err != nil {
		return nil, err
	}
	net, err := mod.CallMethod("model")
	if err != nil {
		return nil, err
	}
	torch, err := godlpack.Import("torch")
	if err != nil {
		return nil, err
	}
	fromDLPack, err := torch.Attr("from_dlpack")
	if err != nil {
		return nil, err
	}
	return &model{net: net, fromDLPack: fromDLPack}, nil
}

// run runs the model on rows (n x inputs, row-major) and returns n x outputs. The
// rows are not copied: Python's torch.Tensor views the Go slice.
func (m *model) run(rows []float32, n int) ([]float32, error) {
	x, err := tensor.FromSlice(rows, int64(n), inputs)
	if err != nil {
		return nil, err
	}
	xt, err := m.fromDLPack.Call(x) // x moves into Python: a godlpack.Array, then torch's
	if err != nil {
		return nil, err
	}
	defer xt.Close()
	y, err := m.net.Call(xt)
	if err != nil {
		return nil, err
	}
	defer y.Close()
	yt, err := y.Tensor() // the model's output, in torch's memory
	if err != nil {
		return nil, err
	}
	defer yt.Close()
	if s := yt.Shape(); len(s) != 2 || s[0] != int64(n) || s[1] != outputs || yt.DType().Name != "float32" {
		return nil, fmt.Errorf("model returned %v %v, want [%d %d] float32", yt.DType(), s, n, outputs)
	}
	v, err := tensor.As[float32](yt)
	if err != nil {
		return nil, err
	}
	out := make([]float32, 0, n*outputs)
	for _, e := range v.All() { // in index order, whatever the strides
		out = append(out, e)
	}
	return out, nil
}

// batcher takes the first waiting request, lets others join for up to wait (or
// until batch rows), runs the model once and answers each. Requests that arrive
// while the model runs form the next batch.
func batcher(m *model, queue <-chan request, batch int, wait time.Duration) {
	for first := range queue {
		reqs := []request{first}
		timer := time.NewTimer(wait)
	gather:
		for len(reqs) < batch {
			select {
			case r := <-queue:
				reqs = append(reqs, r)
			case <-timer.C:
				break gather
			}
		}
		timer.Stop()
		rows := make([]float32, 0, len(reqs)*inputs)
		for _, r := range reqs {
			rows = append(rows, r.x...)
		}
		out, err := m.run(rows, len(reqs))
		for i, r := range reqs {
			if err != nil {
				log.Printf("model: %v", err)
				r.reply <- nil
				continue
			}
			r.reply <- out[i*outputs : (i+1)*outputs]
		}
	}
}

func predict(w http.ResponseWriter, r *http.Request, queue chan<- request) {
	var body struct {
		X *[]float64 `json:"x"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
	if err := dec.Decode(&body); errors.Is(err, os.ErrDeadlineExceeded) {
		fail(w, http.StatusRequestTimeout, "the body took longer than -read-timeout to arrive")
		return
	} else if err != nil {
		fail(w, http.StatusBadRequest, "malformed JSON body: "+err.Error())
		return
	}
	if body.X == nil {
		fail(w, http.StatusBadRequest, `the body must be {"x": [16 numbers]}`)
		return
	}
	if len(*body.X) != inputs {
		fail(w, http.StatusBadRequest, fmt.Sprintf("x has %d numbers, the model takes %d", len(*body.X), inputs))
		return
	}
	x := make([]float32, inputs)
	for i, v := range *body.X {
		x[i] = float32(v)
		if math.IsInf(float64(x[i]), 0) { // finite in float64 (JSON has no infinities), not in the model's float32
			fail(w, http.StatusBadRequest, fmt.Sprintf("x[%d] = %g is outside float32's range (the model's inputs are float32)", i, v))
			return
		}
	}
	req := request{x: x, reply: make(chan []float32, 1)}
	queue <- req
	y := <-req.reply
	if y == nil {
		fail(w, http.StatusInternalServerError, "the model failed (see the server's log)")
		return
	}
	for _, v := range y {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) { // JSON cannot carry it
			fail(w, http.StatusInternalServerError, fmt.Sprintf("the model's output is not finite: %v", y))
			return
		}
	}
	reply(w, http.StatusOK, map[string][]float32{"y": y})
}

func fail(w http.ResponseWriter, status int, msg string) {
	reply(w, status, map[string]string{"error": msg})
}

// reply writes v as the JSON body: encoded before the status is sent, so that a
// value JSON cannot hold is a 500, never a 200 with an empty body.
func reply(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = json.Marshal(map[string]string{"error": "the answer is not JSON: " + err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
