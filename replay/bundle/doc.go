// Package bundle is the portable, self-contained, tamper-evident file
// format of Multiverse's replay records: one file per branch or commit that
// holds everything a replayer needs (manifest, plan, frozen environment,
// seeds, recorded network with bodies, per-step observations and their
// hashes, the run's events for the branch) and everything an auditor needs
// to check that nothing was changed. This package holds the data model
// ([Bundle]), the writer ([Write], [WriteFile]), the reader ([Read],
// [ReadFile]), the offline validator ([Validate]), the HAR export ([HAR]) and
// the request match key both the capture and the replayer use ([MatchKey],
// [NormalizeURL], [Matcher]). It starts no browser and touches no network.
//
// # Layout (stable format, schema "multiverse.bundle/v1")
//
//	manifest.json        Manifest: schema, kind, ids, digests, seeds, origin,
//	                     environment, fingerprint, plan, inputs, guard, steps
//	events.jsonl         the run's events concerning the branch and its
//	                     ancestors, eventlog.WriteJSONL form, seq increasing
//	network.jsonl        one Entry per line, in request order
//	network.har          the same requests as HAR 1.2 (see HAR)
//	steps/NNNN.json      Step N (1-based, at least four digits, zero padded)
//	steps/NNNN.dom.txt   optional: the scrubbed canonical DOM text of step N
//	steps/NNNN.ax.txt    optional: the accessibility snapshot text of step N
//	steps/NNNN.png       optional: the screenshot of step N
//	bodies/<sha256>      response bodies, named by the hex sha256 of their bytes
//	checksums.json       {"algorithm":"sha256","files":{path: hex,...},
//	                      "merkle_root": hex}
//
// No other path is allowed. JSON files are written with two-space
// indentation, keys in struct order (map keys sorted), no HTML escaping and a
// final newline; JSON Lines files are compact, one value per line. Empty
// collections are omitted and read back as nil.
//
// checksums.json lists the sha256 of every other file of the bundle. Its
// Merkle root (see [MerkleRoot]) is computed over those entries: leaves are
// sha256("leaf\x00" + path + "\x00" + hex) in lexicographic path order, a
// parent is sha256("node\x00" + left + right) over the raw 32-byte child
// digests, an odd last node is promoted unchanged, and the root of no files is
// sha256("empty"). All digests are lowercase hex. Anyone can recompute
// checksums, so they detect accidental or careless changes; to detect a
// deliberate rewrite, compare the root with one recorded elsewhere (the
// commit ledger, the event log).
//
// The portable file is a POSIX (PAX) tar stream compressed with zstd: one
// regular file per bundle path, in lexicographic path order, mode 0644, uid
// and gid 0, no user or group names, mtime the manifest's Created truncated
// to the second (the Unix epoch if earlier), no directory entries. The
// encoder uses a 4 MiB window; readers refuse frames with a window over
// 8 MiB. Writing the same Bundle twice yields identical bytes with the same
// build; the decompressed tar stream is the stable contract across builds.
//
// # Integrity checks
//
// [Validate] reports, and [Read] refuses, every one of these problems,
// naming the exact file (and line and event seq for JSON Lines):
//   - checksums.json is missing, does not decode, names another algorithm,
//     lists itself or a malformed digest; a listed file is missing or
//     hashes differently; a file is not listed; the Merkle root does not
//     recompute from the listed entries;
//   - manifest.json is missing or does not decode; its schema is not
//     [Schema] (ErrSchema, checked before anything else: the rest is not
//     interpreted); its kind is unknown or disagrees with Commit; the
//     commit's first_step and action_step are not 1 <= first <= action <=
//     steps (both may be absent); run_id is empty; a seed is not a decimal
//     uint64; steps differs from len(plan);
//   - a file is not part of the layout;
//   - the step files are not exactly steps 1..N (missing, duplicate,
//     out of range, index not matching the file name), a step's action is
//     not the plan's action at that index, a status is not ok, healed or
//     failed; a steps/NNNN.dom.txt or .ax.txt file does not hash to the
//     step's dom_hash or ax_hash (the files are the hashed texts); a
//     per-step file belongs to no step; the last step is advisory;
//   - a network entry is out of request order (seq not increasing), names
//     a step outside 1..N, lacks method or url, carries a malformed digest,
//     or references a body that is missing; a body does not hash to its name;
//   - events.jsonl does not decode (every bad line is reported); an event's
//     run_id is not the manifest's; seqs do not increase; an event's hash
//     does not recompute from its content and prev_hash, or its payload is
//     not canonical; the first event of the run does not link to the
//     genesis hash; an event whose seq follows the previous event's does not
//     link to it ("event N: chain broken"). A subset of a chain cannot be
//     checked across gaps;
//   - network.har does not parse, is not version 1.2, or has a different
//     number of entries than network.jsonl plus one per WebSocket
//     connection of the steps' live entries;
//   - the manifest's start_state names a body the bundle does not hold.
//
// # Additions within v1
//
// Fields added after the first v1 bundles are optional, so older bundles
// still read and replay as they did: manifest.net_digest (the form of the
// steps' network digests: "multiset", or absent for request order),
// manifest.start_state (the sha256 of a body holding the browser state
// the capture started from: cookies and local storage, credentials as
// tokens), steps' live entries (WebSocket and EventSource traffic, see
// branch.LiveFrame) and console entries, and steps' advisory flag. A
// branch that replayed its prefix in a browser context of its own records
// that context's requests for every step; the hashes of the steps before
// its own were observed in its ancestors' contexts, and those steps are
// advisory: a strict replay notes a difference in their hashes instead of
// failing (a site that writes a fresh form token into each page answers
// two contexts differently). A step's network digest covers
// its live entries; a request made before the step's last main-frame
// document (a document the step left again, and its requests) is digested
// without its body, which the browser drops when the next document
// commits.
//
// Screenshots are advisory: their hashes are recorded, not checked.
// [Write] runs the same checks on the Bundle before writing anything, so a
// written bundle always reads back.
//
// # Reader safety
//
// Bundles come from elsewhere. Before trusting or allocating for anything,
// the reader refuses, with an [*EntryError] naming the entry: absolute
// paths, "..", ".", empty elements, backslashes, colons, NUL, invalid
// UTF-8, duplicate paths, anything but regular files (symlinks, hard links,
// devices, directories, FIFOs, global headers, sparse files) with
// [ErrUnsafePath]; more than Limits.MaxFiles entries, an entry over
// Limits.MaxFileBytes, entries totalling over Limits.MaxTotalBytes, or a
// decompressed stream past those bounds plus header room with
// [ErrTooLarge]; undecodable tar data and anything after the tar end
// marker but at most 64 KiB of zero padding with [ErrCorrupt]. A zstd
// stream that does not decompress (a flipped byte fails a block or the
// frame checksum; data after the last frame; not zstd at all) is a
// [*StreamError], matching [ErrCorrupt], which blames the file and no
// entry: the decoder may notice the damage while an entry is being read,
// and a tar error is checked against the rest of the stream first. Sizes are checked against the limits before
// the entry is read, and decompression is cut off at the bound, so a
// decompression bomb cannot allocate past the limits.
//
// # Match key
//
// A replayer serves a recorded response to the request with the same
// [MatchKey]: method, URL normalized by [NormalizeURL] against the
// manifest's origin, request body sha256, and the occurrence of that triple
// in request order (0 for the first). [Bundle.Index] and [Matcher] compute
// keys the same way on both sides.
package bundle
