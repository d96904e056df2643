package sandbox

// arm64 has only the generic table's calls, which the common lists hold.
var (
	archMetadataCalls []uint32
	archSystemCalls   []uint32
)
