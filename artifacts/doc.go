// Package artifacts is Multiverse's content-addressed store: every blob a run
// produces (DOM snapshots, screenshots, response bodies, invoice PDFs) is
// stored once under the sha256 of its bytes and referenced by that digest
// from events, bundles and the commit ledger.
//
// # Layout
//
// [FS] keeps one file per artifact under a root directory:
//
//	<root>/sha256/<first two hex digits>/<64 hex digits>
//	<root>/tmp/                       staging area for PutReader
//
// Files are written read-only (mode 0o444).
//
// # Invariants
//
//   - A file is only ever visible under its final name with its complete
//     content: writers stage the bytes in a temporary file on the same file
//     system, fsync it, rename it into place and fsync the directory. A crash
//     leaves at most an orphaned temporary file, never a truncated artifact.
//   - Put is idempotent and safe to call concurrently with the same or
//     different content, from many goroutines and many processes sharing the
//     root: every writer renames identical bytes onto the same name.
//   - Reads verify: [FS.Get] re-hashes the bytes it returns, and the reader
//     from [FS.Open] reports a mismatch at end of stream. Bytes on disk that do
//     not hash to their name yield a [*CorruptError] naming the file; an
//     absent artifact yields an error matching [ErrNotFound].
//   - [Digest] values are lowercase hex; [ParseDigest] is the only way in
//     from user input and accepts both "<hex>" and "sha256:<hex>".
package artifacts
