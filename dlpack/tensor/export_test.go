package tensor

// LiveBlocks counts this package's C blocks not yet released; LivePins its pinned
// slices.
var (
	LiveBlocks = liveBlocks
	LivePins   = livePins.Load
)
