// Package evidence keeps commit evidence that cannot be scrubbed (an
// invoice PDF carries the billing e-mail and VAT id) encrypted at rest.
//
// Each data dir has one evidence key, DATA_DIR/keys/evidence.key (32
// random bytes, mode 0600), created on first use. Put seals a document
// with AES-256-GCM under that key and stores only the sealed bytes in the
// content-addressed artifact store; the ledger row records two artifacts:
// the evidence name with the digest of the plaintext (what an auditor
// compares the document against), and name+".sealed" with the digest of
// the stored sealed bytes. The plaintext is never written to disk.
//
// A sealed artifact is: "MVSEAL1\n", the 8-byte key id, a 12-byte random
// nonce, then the GCM ciphertext and tag; the first 16 bytes are the
// additional data. Read decrypts and checks the plaintext digest; Verify
// audits a row's evidence offline: every artifact's stored bytes against
// their digest, so a flipped byte of a sealed artifact is named with or
// without the key, and, when the key is present, that each sealed
// artifact authenticates and decrypts to the recorded plaintext digest.
package evidence
