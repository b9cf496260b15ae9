package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is a chat-completions request as Multiverse asks it: a JSON
// answer following Schema.
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	// SchemaName and Schema are the JSON schema the answer must follow
	// (response_format json_schema); a nil Schema asks for free text.
	SchemaName string          `json:"schema_name,omitempty"`
	Schema     json.RawMessage `json:"schema,omitempty"`
	// Decoding parameters. Seed is sent only when set.
	Temperature float64 `json:"temperature"`
	Seed        *int64  `json:"seed,omitempty"`
	MaxTokens   int     `json:"max_tokens,omitempty"`
	// PromptVersion names the template that wrote the messages (a hash of
	// its text): it is part of the fingerprint, never sent.
	PromptVersion string `json:"prompt_version"`
}

// canonical is the fingerprinted form: the request's fields in their
// order after a format name, the schema with sorted keys and no
// insignificant space.
type canonical struct {
	Format string `json:"format"`
	Request
}

// CanonicalFormat names the canonical form; a change of it changes every
// fingerprint.
const CanonicalFormat = "multiverse.llm.request.v1"

// Canonical returns the request's canonical JSON, which its fingerprint
// hashes. It fails only on a schema that is not JSON.
func (r Request) Canonical() ([]byte, error) {
	c := canonical{Format: CanonicalFormat, Request: r}
	if c.Messages == nil {
		c.Messages = []Message{}
	}
	if len(r.Schema) > 0 {
		s, err := canonicalJSON(r.Schema)
		if err != nil {
			return nil, fmt.Errorf("llm: response schema: %w", err)
		}
		c.Schema = s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("llm: canonical request: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Fingerprint returns the hex sha256 of the canonical request.
func (r Request) Fingerprint() (string, error) {
	b, err := r.Canonical()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// canonicalJSON re-encodes a JSON value with sorted object keys (maps
// marshal sorted) and numbers kept as written.
func canonicalJSON(raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
