// Package responses is ply's client for the OpenAI Responses API
// (POST {base}/responses with "stream": true), the API OpenAI's reasoning
// models are best served by, and that some compatible servers now copy.
//
// It owns the wire format: converting a provider-neutral llm.Request into
// a stateless Responses request (instructions, input items, function
// tools, store: false) and decoding the typed event stream back into
// llm.Chunks and *llm.APIError. It must not retry, log, keep state between
// calls (no previous_response_id: history is resent every turn, so that a
// session never depends on what OpenAI stored), or know about history
// repair, tools or the chat loop.
//
// It is a thin client on net/http rather than the official SDK
// (github.com/openai/openai-go), for the reasons given in the openai
// package, which speaks Chat Completions:
//
//   - Retries belong to the chat layer alone, which honours Retry-After
//     and never replays a stream whose first chunk was shown; the SDK
//     retries by default.
//   - ply needs the raw events as they come: a text delta is shown at
//     once, a call is reported once, when its output item is done, and
//     failures inside the stream (error, response.failed) keep the code
//     the chat layer classifies by.
//   - Transport errors must keep their identity (errors.Is with
//     io.ErrUnexpectedEOF or syscall.ECONNRESET, net.Error.Timeout) for the
//     chat layer's transport whitelist. HTTP errors become *llm.APIError.
//   - The surface ply uses is one endpoint and a handful of event types;
//     a dependency-free client starts fast.
//
// The command reads OPENAI_API_KEY into Config.APIKey and OPENAI_BASE_URL
// into Config.BaseURL; this package reads no environment itself. The SSE
// framing is parsed by internal/sse.
package responses

import (
	"context"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
	"github.com/plyhq/ply/internal/provider/wirecache"
)

// DefaultBaseURL is OpenAI's own endpoint.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Client.
type Config struct {
	// BaseURL is the API root, such as "https://api.openai.com/v1";
	// "/responses" is appended. A trailing slash is tolerated. Empty means
	// DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends no Authorization
	// header (local servers).
	APIKey string
	// Model is used when a Request names none.
	Model string
	// HTTPClient is used for requests; nil means transport.DefaultHTTPClient
	// (a 30 s connect timeout, no overall timeout). Its
	// Timeout, if any, bounds a whole stream, so leave it zero and use
	// StreamIdleTimeout or the context instead.
	HTTPClient *http.Client
	// Headers are added to every request and may override the defaults.
	Headers map[string]string
	// Reasoning, when set, is sent for reasoning models, and the
	// encrypted reasoning is requested back so that it can be resent with
	// the next turn (store is false, so the server keeps none). Leave it
	// nil for models without reasoning, which reject both.
	Reasoning *Reasoning
	// StreamIdleTimeout aborts a request when no byte
	// arrives for this long, including while waiting for the response
	// headers. The error is a net.Error whose Timeout reports true. Keep
	// it generous: reasoning models may think for minutes.
	// Zero means transport.DefaultIdleTimeout (300 s); negative, none.
	StreamIdleTimeout time.Duration
	// MaxResponseBytes caps the bytes of one response body; past it the
	// stream ends with a *transport.ResponseTooLargeError. Zero means
	// transport.DefaultMaxResponseBytes; negative, no cap.
	MaxResponseBytes int64
}

// Reasoning configures a reasoning model.
type Reasoning struct {
	// Effort is "minimal", "low", "medium" or "high"; empty leaves the
	// model's default.
	Effort string
	// Summary is "auto", "concise" or "detailed" to stream reasoning
	// summaries as Chunk.Thought; empty asks for none.
	Summary string
}

// Client streams Responses API answers. It is safe for concurrent use.
type Client struct {
	cfg Config
	url string
	tr  transport.Client
	// msgs keeps each history entry's encoding between requests.
	msgs wirecache.Cache[[]byte]
	// head keeps the encoding of the rest of the request.
	head wirecache.Head[[]byte]
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	return &Client{cfg: cfg, url: base + "/responses", tr: transport.Client{
		Provider:    "responses", // the package name, as in its other errors
		HTTP:        cfg.HTTPClient,
		IdleTimeout: cfg.StreamIdleTimeout,
		MaxBytes:    cfg.MaxResponseBytes,
		StatusError: statusError,
	}}
}

// Stream sends req and returns the streamed response. The request is made
// when the iteration starts. Text and reasoning deltas are yielded as they
// arrive; a reasoning item's encrypted content, when asked for, is yielded
// as a ThoughtSignature when the item is done; each function call is
// yielded once, when its output item is done; the finish reason comes with
// response.completed or response.incomplete, and usage last, in a chunk of
// its own.
//
// An error is yielded at most once, with a zero Chunk, and ends the
// stream. It is one of: *llm.APIError (an HTTP error, an error event or
// response.failed), an error wrapping *llm.InvalidStreamError (unusable
// content; what could be used was yielded first), the context's error, or
// a transport error wrapped with %w. Stream never retries.
//
// Stopping the iteration early closes the response body.
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		payload, err := c.encode(req)
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}

		s, err := c.tr.Post(ctx, c.url, c.header(), payload...)
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		defer s.Close()
		y := s.Watch(yield) // the rest of a stream given up is not read
		if err := decodeStream(s.Body, y); err != nil {
			yield(llm.Chunk{}, s.Fail(err))
		}
	}
}

// header returns the headers sent with every request, over the
// transport's defaults.
func (c *Client) header() http.Header {
	h := http.Header{}
	if c.cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	for k, v := range c.cfg.Headers {
		h.Set(k, v)
	}
	return h
}

// IdleTimeoutError reports a stream that went silent for longer than
// Config.StreamIdleTimeout; see transport.IdleTimeoutError.
type IdleTimeoutError = transport.IdleTimeoutError
