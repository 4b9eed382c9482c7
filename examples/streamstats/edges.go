package main

import (
	"fmt"
	"math"

	"github.com/godlpack/godlpack"
)

// MaxBins is the most bins a Histogram has (bins is a uint16): streamstats.MAX_BINS.
const MaxBins = math.MaxUint16

// Scale says how edges spaces the bin edges: streamstats.Scale, an IntEnum
// (godlpack.IntEnumFor[Scale]); a Scale parameter takes a member or its int.
type Scale int

const (
	Linear Scale = iota // evenly spaced edges
	Log                 // geometric edges (lo > 0)
)

// edges returns the bins + 1 edges of bins bins over [lo, hi]: evenly spaced
// (Linear) or in geometric progression (Log, lo > 0).
func edges(bins int, lo, hi float64, scale Scale) ([]float64, error) {
	if err := checkBins("edges", bins, lo, hi); err != nil {
		return nil, err
	}
	if scale == Log && !(lo > 0) {
		return nil, fmt.Errorf("edges(): Scale.LOG needs lo > 0 (got lo=%v)", lo)
	}
	out := make([]float64, bins+1)
	for i := range out {
		t := float64(i) / float64(bins)
		if scale == Log {
			out[i] = lo * math.Pow(hi/lo, t)
		} else {
			out[i] = lo + t*(hi-lo)
		}
	}
	out[0], out[bins] = lo, hi // exact ends, whatever the rounding between
	return out, nil
}

// checkBins is the rule on bins, lo and hi that a Histogram's constructor
// applies, for fn's error message.
func checkBins(fn string, bins int, lo, hi float64) error {
	if bins < 1 || bins > MaxBins {
		return fmt.Errorf("%s(): bins must be in [1, %d] (got %d)", fn, MaxBins, bins)
	}
	if !(lo < hi) {
		return fmt.Errorf("%s(): lo must be less than hi (got lo=%v, hi=%v)", fn, lo, hi)
	}
	if math.IsInf(hi-lo, 0) { // a value's bin is (x - lo) / (hi - lo) * bins: 0 or NaN for every x
		return fmt.Errorf("%s(): hi - lo must be finite (got lo=%v, hi=%v, hi - lo = %v)", fn, lo, hi, hi-lo)
	}
	return nil
}

// binOf is the bin of v in bins bins over [lo, hi), -1 outside it (NaN
// included): min(bins - 1, floor((v - lo) / (hi - lo) * bins)), the rule Add
// counts with (countLine).
func binOf(v, lo, hi float64, bins int) int {
	if !(v >= lo && v < hi) {
		return -1
	}
	return min(bins-1, int(math.Floor((v-lo)/(hi-lo)*float64(bins))))
}

// binOfChecked is Histogram.bin_of, a static method: binOf with bins, lo and hi
// checked as the constructor checks them.
func binOfChecked(v float64, bins int, lo, hi float64) (int, error) {
	if err := checkBins("bin_of", bins, lo, hi); err != nil {
		return 0, err
	}
	return binOf(v, lo, hi, bins), nil
}

// fromCounts is Histogram.from_counts, a class method: a Histogram whose counts
// are counts (a list of ints or a 1-D int64 tensor), of the class it is called
// on (cls: godlpack makes the *Histogram an instance of a Python subclass).
func fromCounts(_ *godlpack.Object, counts godlpack.Tensor[int64], lo, hi float64) (*Histogram, error) {
	cs, err := godlpack.GoSlice[int64](counts)
	if err != nil {
		return nil, err
	}
	if len(cs) < 1 || len(cs) > MaxBins {
		return nil, fmt.Errorf("from_counts(): counts must have 1 to %d bins (got %d)", MaxBins, len(cs))
	}
	h, err := newHistogram(uint16(len(cs)), lo, hi)
	if err != nil {
		return nil, err
	}
	var sum int64
	for i, c := range cs {
		if c < 0 {
			return nil, fmt.Errorf("from_counts(): counts[%d] is %d: a count is >= 0", i, c)
		}
		h.counts[i] = c
		sum += c
	}
	h.count.Store(sum)
	return h, nil
}
