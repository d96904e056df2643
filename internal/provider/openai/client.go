// Package openai is ply's client for the OpenAI Chat Completions streaming
// API and the many servers that copy it (DashScope, vLLM, OpenRouter,
// Ollama, LM Studio, llama.cpp, ...).
//
// It is a thin client on net/http rather than the official SDK
// (github.com/openai/openai-go), for reasons the chat layer depends on:
//
//   - Retries belong to the chat layer alone: one policy
//     with separate budgets per failure class, honouring Retry-After, and
//     never replaying a stream whose first chunk was already shown. This
//     client therefore never retries, and it yields every chunk the moment
//     it is parsed, so the caller always knows whether anything was seen
//     when a transport error arrives. The SDK retries by default and
//     buffers its own view of the stream; we would spend effort switching
//     its behaviour off and still not see the boundary we need.
//   - Compatible servers add fields the SDK does not model
//     (reasoning_content, reasoning), number tool-call fragments in their
//     own ways, and send errors inside the stream. Decoding the wire JSON
//     ourselves keeps these quirks in one visible place.
//   - Errors must keep their identity: transport failures are wrapped with
//     %w so errors.Is(err, io.ErrUnexpectedEOF), syscall.ECONNRESET and
//     net.Error's Timeout still work for the transport-retry whitelist
//     and HTTP errors become *llm.APIError with a kind the chat
//     layer can branch on.
//   - The wire surface ply uses is small (one endpoint, one request shape,
//     one chunk shape), and a dependency-free client starts fast.
//
// The SSE framing is parsed by internal/sse.
package openai

import (
	"context"
	"iter"
	"mime"
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
	// BaseURL is the API root, such as "https://api.openai.com/v1" or
	// "http://localhost:11434/v1"; "/chat/completions" is appended. A
	// trailing slash is tolerated. Empty means DefaultBaseURL.
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
	// Headers are added to every request and may override the defaults
	// (for example an Azure "api-key" header).
	Headers map[string]string
	// MaxTokensField names the field for Request.MaxOutputTokens:
	// "max_tokens" (the default, understood by every compatible server) or
	// "max_completion_tokens" (required by OpenAI's reasoning models).
	MaxTokensField string
	// SendReasoning sends the model's earlier thoughts back as
	// reasoning_content on assistant messages. Off by default: most
	// servers ignore or reject it, and DeepSeek asks clients not to.
	SendReasoning bool
	// StreamIdleTimeout aborts a request when no byte
	// arrives for this long, including while waiting for the response
	// headers. The error is a net.Error whose Timeout reports true. Keep
	// it generous: reasoning models may think for minutes before their
	// first chunk.
	// Zero means transport.DefaultIdleTimeout (300 s); negative, none.
	StreamIdleTimeout time.Duration
	// MaxResponseBytes caps the bytes of one response body; past it the
	// stream ends with a *transport.ResponseTooLargeError. Zero means
	// transport.DefaultMaxResponseBytes; negative, no cap.
	MaxResponseBytes int64
}

// Client streams chat completions. It is safe for concurrent use.
type Client struct {
	cfg Config
	url string
	tr  transport.Client
	// msgs keeps each history message's encoding between requests.
	msgs wirecache.Cache[[]byte]
	// head keeps the encoding of the rest of the request.
	head wirecache.Head[encodedHead]
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	return &Client{cfg: cfg, url: base + "/chat/completions", tr: transport.Client{
		Provider:    provider,
		HTTP:        cfg.HTTPClient,
		IdleTimeout: cfg.StreamIdleTimeout,
		MaxBytes:    cfg.MaxResponseBytes,
		StatusError: statusError,
	}}
}

// Stream sends req and returns the streamed response. The request is made
// when the iteration starts. Each chunk is yielded as soon as it is
// decoded; tool calls are assembled from their fragments and yielded once,
// complete, with the finish reason (or at the end of the stream when the
// server sent none). Usage comes last, in a chunk of its own.
//
// An error is yielded at most once, with a zero Chunk, and ends the
// stream. It is one of: *llm.APIError (an HTTP error or an error object in
// the stream), an error wrapping *llm.InvalidStreamError (unusable
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
		decode := decodeStream
		if ct, _, _ := mime.ParseMediaType(s.Header.Get("Content-Type")); ct == "application/json" {
			// The server ignored stream:true and sent one whole answer.
			decode = decodeWhole
		}
		if err := decode(s.Body, y); err != nil {
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
