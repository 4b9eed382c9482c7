package main

import (
	"fmt"
	"maps"

	"github.com/godlpack/godlpack"
)

// merged is streamstats.merged(*hists): a new Histogram holding the counts of
// all of hs. A variadic Go function is bound as Python's *args: each positional
// argument converts as a *Histogram parameter would (an int among them: a
// TypeError naming hists[i]).
func merged(hs ...*Histogram) (*Histogram, error) {
	if len(hs) == 0 {
		return nil, godlpack.TypeError.Errorf("merged() takes at least one Histogram (got none)")
	}
	first := hs[0]
	out, err := newHistogram(first.bins, first.lo, first.hi)
	if err != nil {
		return nil, err
	}
	for i, h := range hs {
		if h.bins != first.bins || h.lo != first.lo || h.hi != first.hi {
			return nil, fmt.Errorf("merged(): hists[%d] has bins=%d, lo=%v, hi=%v but hists[0] has bins=%d, lo=%v, hi=%v: they must match",
				i, h.bins, h.lo, h.hi, first.bins, first.lo, first.hi)
		}
		if err := out.Merge(h); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SetTags is h.set_tags(**tags): its keyword arguments, whose values must be
// str (a map[string]string parameter named "**tags" is Python's **kwargs: a
// value of another type is a TypeError naming its key), added to h's tags.
func (h *Histogram) SetTags(tags map[string]string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tags == nil {
		h.tags = make(map[string]string, len(tags))
	}
	maps.Copy(h.tags, tags)
}

// Tags is h.tags (read-only): a copy of the tags, a dict[str, str].
func (h *Histogram) Tags() map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]string, len(h.tags))
	maps.Copy(out, h.tags)
	return out
}
