package tensor

// LiveBlocks counts this package's C blocks not yet released; LivePins the
// tensors over pinned slices not yet released; PinnedObjects the objects still
// pinned (unpinned by the sweep after the last of their tensors is released).
var (
	LiveBlocks    = liveBlocks
	LivePins      = livePins
	PinnedObjects = pinnedObjects
)
