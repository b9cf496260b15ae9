package bundle

import "math"

// Default limits of a reader; [Write] refuses bundles beyond them, so every
// written bundle can be read with the zero Limits.
const (
	DefaultMaxFiles      = 20000
	DefaultMaxFileBytes  = 64 << 20
	DefaultMaxTotalBytes = 1 << 30
)

// Limits bound what a reader accepts from an archive before any of it is
// trusted. A zero or negative field means its default.
type Limits struct {
	// MaxFiles bounds the number of archive entries (default 20000).
	MaxFiles int
	// MaxFileBytes bounds the size of one entry (default 64 MiB).
	MaxFileBytes int64
	// MaxTotalBytes bounds the sum of entry sizes (default 1 GiB).
	MaxTotalBytes int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = DefaultMaxTotalBytes
	}
	return l
}

// streamCap bounds the decompressed tar stream: the file bytes plus room
// for tar headers, padding, extended headers and the end-of-archive
// blocks. Decompression stops there, whatever the entries declare.
func (l Limits) streamCap() int64 {
	const perEntry, slack = 4096, maxTrailing + 2<<20
	room := int64(math.MaxInt64 - slack)
	if int64(l.MaxFiles) >= room/perEntry {
		return math.MaxInt64
	}
	room -= (int64(l.MaxFiles) + 1) * perEntry
	if l.MaxTotalBytes >= room {
		return math.MaxInt64
	}
	return l.MaxTotalBytes + (int64(l.MaxFiles)+1)*perEntry + slack
}

// maxTrailing bounds the zero padding accepted after the tar end marker
// (tar writers pad to a record size, 10240 bytes by default).
const maxTrailing = 64 << 10

// Compression parameters of the portable file. Readers refuse zstd frames
// with a larger window, which bounds decoder memory.
const (
	encoderWindow    = 4 << 20
	maxDecoderWindow = 8 << 20
)
