package tensor

import "unsafe"

// LiveBlocks counts this package's C blocks not yet released; LivePins the
// tensors over pinned slices not yet released; PinnedObjects the objects still
// pinned (unpinned by the sweep after the last of their tensors is released).
// AllBlocks counts the blocks malloc'd and not yet freed (cached ones too);
// BlockClass, ClassCap and CachedIn tell the block cache's state (cache.go);
// DropLargeSlot frees the block tensor.c's large-block slot keeps.
var (
	LiveBlocks    = liveBlocks
	LivePins      = livePins
	PinnedObjects = pinnedObjects
	AllBlocks     = allBlocks
	BlockClass    = blockClass
	ClassCap      = classCap
	CachedIn      = cachedIn
	DropLargeSlot = dropLargeSlot
)

// BlockAddr returns the address of t's managed tensor (its block).
func BlockAddr(t *Tensor) uintptr { return uintptr(t.managed) }

// TensorSize is the size of a Tensor, which bench/bench_go.sh's rows depend on.
const TensorSize = unsafe.Sizeof(Tensor{})
