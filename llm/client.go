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
// HTTP client is http.DefaultClient; the zero Timeout is 30 s; the zero
// Attempts is DefaultAttempts.
type Client struct {
	// BaseURL is the API root, e.g. https://api.example.com/v1 or
	// http://127.0.0.1:11434/v1; the client posts to BaseURL/chat/completions.
	BaseURL string
	// APIKey, when set, is sent as a bearer token. It never reaches an
	// error, a log or a cassette.
	APIKey string
	HTTP   *http.Client
	// Timeout bounds one attempt.
	Timeout time.Duration
	// Attempts is how many times a question is asked of an endpoint that
	// cannot be reached or answers 5xx or 429.
	Attempts int
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

// ErrNoAnswer: the endpoint gave no answer: it could not be reached,
// did not answer within the client's timeout, or answered with an error
// status (a 5xx or 429 after the client's attempts).
var ErrNoAnswer = errors.New("llm: the endpoint did not answer")

// NoAnswerError is a question the endpoint did not answer: URL is where
// it was asked, Attempts how many times, Err the last attempt's failure
// (an *EndpointError for an error status).
type NoAnswerError struct {
	URL      string
	Attempts int
	Err      error
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("llm: %s did not answer (%d attempt(s)): %v", e.URL, e.Attempts, e.Err)
}

// Unwrap makes errors.Is(err, ErrNoAnswer) and errors.As on the cause hold.
func (e *NoAnswerError) Unwrap() []error { return []error{ErrNoAnswer, e.Err} }

// DefaultAttempts is how many times a Client asks before it gives up on
// an endpoint that is unreachable or answers 5xx or 429.
const DefaultAttempts = 3

// retryBackoff is the wait before the second attempt; it doubles.
const retryBackoff = 250 * time.Millisecond

// Complete asks the endpoint for one completion of req. A connection
// that fails and an answer of 5xx or 429 are asked again, up to
// Attempts times in all; a call that runs over Timeout is not (it bounds
// each attempt, and a slow model stays slow). An endpoint that gives no
// answer is a *NoAnswerError (ErrNoAnswer); an answer that is not a chat
// completion is ErrBadAnswer; a ctx that ends is ctx's error.
func (c *Client) Complete(ctx context.Context, req Request) (*Response, error) {
	body, err := json.Marshal(wireOf(req))
	if err != nil {
		return nil, fmt.Errorf("llm: request: %w", err)
	}
	url := strings.TrimRight(c.BaseURL, "/") + "/chat/completions"
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	wait := retryBackoff
	for i := 1; ; i++ {
		raw, retry, err := c.post(ctx, url, body)
		if err == nil {
			return Decode(raw)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("llm: asking %s: %w", url, ctx.Err())
		}
		if errors.Is(err, ErrBadAnswer) {
			return nil, err
		}
		if !retry || i >= attempts {
			return nil, &NoAnswerError{URL: url, Attempts: i, Err: err}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("llm: asking %s: %w", url, ctx.Err())
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// post makes one attempt: the answer's bytes on a 2xx; else the error
// and whether asking again may help.
func (c *Client) post(ctx context.Context, url string, body []byte) (raw []byte, retry bool, err error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(actx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, false, fmt.Errorf("llm: endpoint %q: %w", c.BaseURL, err)
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
		if actx.Err() != nil {
			return nil, false, fmt.Errorf("no answer within %s", timeout)
		}
		return nil, true, fmt.Errorf("asking: %w", err)
	}
	defer resp.Body.Close()
	raw, err = io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		if actx.Err() != nil {
			return nil, false, fmt.Errorf("no whole answer within %s", timeout)
		}
		return nil, true, fmt.Errorf("reading the answer: %w", err)
	}
	if len(raw) > MaxResponseBytes {
		return nil, false, fmt.Errorf("%w: the answer is over %d bytes", ErrBadAnswer, MaxResponseBytes)
	}
	if resp.StatusCode/100 != 2 {
		retry := resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests
		return nil, retry, &EndpointError{Status: resp.StatusCode, Msg: errorMessage(raw)}
	}
	return raw, false, nil
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
