package main

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/vec"
)

// Histogram is the Go value of a streamstats.Histogram instance. Its methods
// run with the GIL released, so two Python threads may call them at once: mu
// guards the counts (add counts into a local slice first, then takes mu once).
type Histogram struct {
	bins   uint16
	lo, hi float64

	mu      sync.Mutex
	counts  []int64
	count   atomic.Int64 // every value added, outside ones included; written under mu, read with no lock (AtomicProperty)
	outside int64
	name    string
	tags    map[string]string // set_tags's (varargs.go)
}

// EmptyError is quantile's error on an empty histogram: streamstats.EmptyError.
type EmptyError struct{}

func (*EmptyError) Error() string {
	return "quantile(): the histogram is empty (count == 0): add values first"
}

func newHistogram(bins uint16, lo, hi float64) (*Histogram, error) {
	if bins == 0 {
		return nil, fmt.Errorf("Histogram(): bins must be at least 1")
	}
	if err := checkBins("Histogram", int(bins), lo, hi); err != nil {
		return nil, err
	}
	return &Histogram{bins: bins, lo: lo, hi: hi, counts: make([]int64, bins)}, nil
}

// Add counts the elements of x, any layout.
func (h *Histogram) Add(x godlpack.Tensor[godlpack.AnyFloat]) error {
	var onStack [64]int64 // most histograms' bins: no allocation per call
	local := onStack[:0]
	if int(h.bins) <= len(onStack) {
		local = onStack[:h.bins]
	} else {
		local = make([]int64, h.bins)
	}
	var outside int64
	var err error
	if x.DType() == dlpack.DTypeOf[float32]() {
		outside, err = countInto[float32](h, x, local)
	} else {
		outside, err = countInto[float64](h, x, local)
	}
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, c := range local {
		h.counts[i] += c
	}
	h.count.Add(x.Len())
	h.outside += outside
	return nil
}

// countInto counts x's elements (of Go type T) into local, returning how many
// fell outside [lo, hi) or were NaN: a contiguous x in one slice, any other
// layout line by line.
func countInto[T float32 | float64](h *Histogram, x godlpack.Tensor[godlpack.AnyFloat], local []int64) (int64, error) {
	if s, err := godlpack.ReadSlice[T](x); err == nil { // contiguous: one slice, no view to build
		return countLine(h, s, local), nil
	}
	v, err := vec.FromTensor[T](x) // shape and strides read in place: no copies
	if err != nil {
		return 0, err
	}
	var outside int64
	err = vec.Lines(v, func(_ int, line []T) error {
		outside += countLine(h, line, local)
		return nil
	})
	return outside, err
}

// countLine counts line's elements into local, returning how many fell outside.
func countLine[T float32 | float64](h *Histogram, line []T, local []int64) (outside int64) {
	bins := int(h.bins)
	for _, e := range line {
		if i := binOf(float64(e), h.lo, h.hi, bins); i >= 0 {
			local[i]++
		} else { // outside [lo, hi), NaN too
			outside++
		}
	}
	return outside
}

// Counts returns a copy of the counts: with ResultIn(NumPy), a numpy.ndarray of
// int64 viewing the copy (a []E result in a framework is a 1-D array of E, and
// the stub types it so).
func (h *Histogram) Counts() []int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.counts)
}

// CountsMemory is the counts' own memory, which memoryview(h) and
// numpy.asarray(h) view (ClassDef.Buffer): made by the constructor at its final
// length and never replaced, only written in place (under mu), so a view shows
// the counts as they are now.
func (h *Histogram) CountsMemory() []int64 { return h.counts }

// State is the Histogram's pickled state (ClassDef.Pickle: its __getstate__):
// restoreHistogram's parameters, in order.
func (h *Histogram) State() godlpack.Tuple {
	h.mu.Lock()
	defer h.mu.Unlock()
	return godlpack.Tuple{int(h.bins), h.lo, h.hi, h.name, h.count.Load(), h.outside, append([]int64(nil), h.counts...)}
}

// restoreHistogram is the Histogram a State describes: unpickling's
// __setstate__(state) calls it with the state's items.
func restoreHistogram(bins uint16, lo, hi float64, name string, count, outside int64, counts []int64) (*Histogram, error) {
	h, err := newHistogram(bins, lo, hi)
	if err != nil {
		return nil, err
	}
	if len(counts) != int(bins) {
		return nil, fmt.Errorf("Histogram.__setstate__(): %d counts for %d bins", len(counts), bins)
	}
	copy(h.counts, counts)
	h.name, h.outside = name, outside
	h.count.Store(count)
	return h, nil
}

// Equal is h == other: the same bins, lo, hi and counts (name, count and
// outside aside).
func (h *Histogram) Equal(other *Histogram) bool {
	if other == h {
		return true
	}
	if other.bins != h.bins || other.lo != h.lo || other.hi != h.hi {
		return false
	}
	counts := other.snapshot() // one lock at a time: a == b and b == a at once cannot deadlock
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Equal(h.counts, counts)
}

// Plus is h + other: a new Histogram with the summed counts (count and
// outside summed too), of the same bins, lo and hi (else an error: ValueError).
func (h *Histogram) Plus(other *Histogram) (*Histogram, error) {
	if other.bins != h.bins || other.lo != h.lo || other.hi != h.hi {
		return nil, fmt.Errorf("Histogram + Histogram: bins=%d, lo=%v, hi=%v and bins=%d, lo=%v, hi=%v: they must match",
			h.bins, h.lo, h.hi, other.bins, other.lo, other.hi)
	}
	sum, err := newHistogram(h.bins, h.lo, h.hi)
	if err != nil {
		return nil, err
	}
	for _, x := range []*Histogram{h, other} {
		if err := sum.Merge(x); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// Bin is h[i]: bin i's count, i < 0 counting from the end (h[-1]: the last);
// out of range an IndexError.
func (h *Histogram) Bin(i int) (int64, error) {
	if i < 0 {
		i += int(h.bins)
	}
	if i < 0 || i >= int(h.bins) {
		return 0, godlpack.IndexError.Errorf("Histogram index out of range (%d bins)", h.bins)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.counts[i], nil
}

// snapshot is a copy of the counts.
func (h *Histogram) snapshot() []int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]int64(nil), h.counts...)
}

// Merge adds other's counts.
func (h *Histogram) Merge(other *Histogram) error {
	if other.bins != h.bins || other.lo != h.lo || other.hi != h.hi {
		return fmt.Errorf("merge(): other has bins=%d, lo=%v, hi=%v, this one bins=%d, lo=%v, hi=%v: they must match",
			other.bins, other.lo, other.hi, h.bins, h.lo, h.hi)
	}
	if other == h {
		h.mu.Lock()
		defer h.mu.Unlock()
		for i := range h.counts {
			h.counts[i] *= 2
		}
		h.count.Store(2 * h.count.Load())
		h.outside *= 2
		return nil
	}
	other.mu.Lock()
	counts := append([]int64(nil), other.counts...)
	count, outside := other.count.Load(), other.outside
	other.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, c := range counts {
		h.counts[i] += c
	}
	h.count.Add(count)
	h.outside += outside
	return nil
}

// A Bin is one bin of a Histogram, as iter(h) yields it: the tuple
// (left_edge, right_edge, count), its fields in order.
type Bin struct {
	Left, Right float64
	Count       int64
}

// All yields the bins in order, each read when it is yielded (iter(h): a lazy
// Python iterator). The lock is taken per bin, never across a yield: the loop
// consuming the bins may call h.add.
func (h *Histogram) All() iter.Seq[Bin] {
	return func(yield func(Bin) bool) {
		width := (h.hi - h.lo) / float64(h.bins)
		for i := range int(h.bins) {
			h.mu.Lock()
			c := h.counts[i]
			h.mu.Unlock()
			right := h.lo + float64(i+1)*width
			if i == int(h.bins)-1 {
				right = h.hi // the exact end, whatever the rounding
			}
			if !yield(Bin{Left: h.lo + float64(i)*width, Right: right, Count: c}) {
				return
			}
		}
	}
}

// Quantile is the midpoint of the bin holding the q-quantile of the values in
// the bins.
func (h *Histogram) Quantile(q float64) (float64, error) {
	if !(q >= 0 && q <= 1) {
		return 0, fmt.Errorf("quantile(): q must be in [0, 1], got %v", q)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var inBins int64
	for _, c := range h.counts {
		inBins += c
	}
	if h.count.Load() == 0 || inBins == 0 {
		return 0, &EmptyError{}
	}
	target := q * float64(inBins)
	var seen int64
	width := (h.hi - h.lo) / float64(h.bins)
	for i, c := range h.counts {
		seen += c
		if c > 0 && float64(seen) >= target {
			return h.lo + (float64(i)+0.5)*width, nil
		}
	}
	return h.hi - width/2, nil
}

// Repr is repr(h).
func (h *Histogram) Repr() string {
	return fmt.Sprintf("Histogram(bins=%d, lo=%s, hi=%s, count=%d)", h.bins, pyFloat(h.lo), pyFloat(h.hi), h.Count())
}

// pyFloat formats f as Python's repr of a float.
func pyFloat(f float64) string {
	s := fmt.Sprint(f)
	if !math.IsInf(f, 0) && !math.IsNaN(f) && math.Trunc(f) == f && math.Abs(f) < 1e16 {
		s += ".0"
	}
	return s
}

func (h *Histogram) Count() int64 { return h.count.Load() }

func (h *Histogram) Outside() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.outside
}

func (h *Histogram) Bins() int        { return int(h.bins) }
func (h *Histogram) Lo() float64      { return h.lo }
func (h *Histogram) Hi() float64      { return h.hi }
func (h *Histogram) Name() string     { h.mu.Lock(); defer h.mu.Unlock(); return h.name }
func (h *Histogram) SetName(s string) { h.mu.Lock(); defer h.mu.Unlock(); h.name = s }
