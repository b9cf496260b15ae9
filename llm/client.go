package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ErrBadAnswer: the endpoint answered 200 with something that is not a
// chat completion holding one message.
var ErrBadAnswer = errors.New("llm: not a chat completion")

// EndpointError is a non-2xx answer of the endpoint.
type EndpointError struct {
	Status int
	// Msg is the error message the endpoint gave, cut to 200 bytes.
	Msg string
}

func (e *EndpointError) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("llm: endpoint answered %d", e.Status)
	}
	return fmt.Sprintf("llm: endpoint answered %d: %s", e.Status, e.Msg)
}

// Usage is the token count the endpoint reports.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Response is a chat completion: the exact bytes the endpoint sent and
// what they say.
type Response struct {
	Body         []byte
	Model        string
	Content      string
	FinishReason string
	Usage        Usage
}

// Client asks an OpenAI-compatible chat-completions endpoint. The zero
// HTTP client is http.DefaultClient; the zero Timeout is 30 s.
type Client struct {
	// BaseURL is the API root, e.g. https://api.example.com/v1 or
	// http://127.0.0.1:11434/v1; the client posts to BaseURL/chat/completions.
	BaseURL string
	// APIKey, when set, is sent as a bearer token. It never reaches an
	// error, a log or a cassette.
	APIKey  string
	HTTP    *http.Client
	Timeout time.Duration
}

// MaxResponseBytes bounds what the client reads of an answer.
const MaxResponseBytes = 4 << 20

// wire is the request body the protocol takes.
type wire struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	Temperature    float64         `json:"temperature"`
	Seed           *int64          `json:"seed,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// Complete asks the endpoint for one completion of req.
func (c *Client) Complete(ctx context.Context, req Request) (*Response, error) {
	body, err := json.Marshal(wireOf(req))
	if err != nil {
		return nil, fmt.Errorf("llm: request: %w", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	url := strings.TrimRight(c.BaseURL, "/") + "/chat/completions"
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("llm: endpoint %q: %w", c.BaseURL, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("llm: asking %s: %w", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("llm: reading the answer of %s: %w", url, err)
	}
	if len(raw) > MaxResponseBytes {
		return nil, fmt.Errorf("%w: the answer is over %d bytes", ErrBadAnswer, MaxResponseBytes)
	}
	if resp.StatusCode/100 != 2 {
		return nil, &EndpointError{Status: resp.StatusCode, Msg: errorMessage(raw)}
	}
	return Decode(raw)
}

func wireOf(req Request) wire {
	w := wire{Model: req.Model, Messages: req.Messages, Temperature: req.Temperature, Seed: req.Seed, MaxTokens: req.MaxTokens}
	if len(req.Schema) > 0 {
		name := req.SchemaName
		if name == "" {
			name = "answer"
		}
		w.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{Name: name, Schema: req.Schema, Strict: true}}
	}
	return w
}

// completion is the part of a chat completion Multiverse reads.
type completion struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage Usage `json:"usage"`
}

// Decode reads a chat completion's bytes (from the endpoint or a
// cassette).
func Decode(raw []byte) (*Response, error) {
	var c completion
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	if len(c.Choices) == 0 || c.Choices[0].Message.Content == nil {
		return nil, fmt.Errorf("%w: no choice holds a message", ErrBadAnswer)
	}
	return &Response{Body: raw, Model: c.Model, Content: *c.Choices[0].Message.Content,
		FinishReason: c.Choices[0].FinishReason, Usage: c.Usage}, nil
}

// errorMessage is the message of an error answer ({"error":{"message":..}}
// or {"error":"..."}), else its first bytes, cut to 200 bytes.
func errorMessage(raw []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	msg := string(raw)
	if json.Unmarshal(raw, &e) == nil && len(e.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(e.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
		case json.Unmarshal(e.Error, &s) == nil:
			msg = s
		}
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}
