// Package anthropic is ply's client for the Anthropic Messages streaming
// API (POST {base}/v1/messages with "stream": true) and the proxies that
// speak it.
//
// It owns the wire format: converting a provider-neutral llm.Request into
// a Messages request (system blocks, alternating user/assistant turns,
// tool_use and tool_result blocks, thinking blocks with their signatures,
// prompt-cache markers), and decoding the event stream back into
// llm.Chunks and *llm.APIError. It must not retry, log, keep state between
// calls, or know about history repair, tools or the chat loop: those
// belong to the layers above, which see only llm types.
//
// It is a thin client on net/http rather than the official SDK
// (github.com/anthropics/anthropic-sdk-go):
//
//   - Retries belong to the chat layer alone: one policy with budgets per
//     failure class that honours Retry-After and never replays a stream
//     whose first chunk was already shown. The SDK retries 429, 529 and
//     connection errors by default and hides the attempts; here every
//     failure reaches the caller once.
//   - The SDK accumulates events into its own Message type. ply needs the
//     raw events as they come: a text delta is shown the moment it
//     arrives, a tool call is reported once its block stops, and a
//     thinking block's signature must be kept byte for byte.
//   - Transport errors must keep their identity (errors.Is with
//     io.ErrUnexpectedEOF or syscall.ECONNRESET, net.Error.Timeout) for the
//     chat layer's transport whitelist; the SDK wraps them in its own
//     error types. HTTP errors become *llm.APIError with a kind.
//   - The surface ply uses is one endpoint and a dozen event shapes, and a
//     dependency-free client keeps start-up fast.
//
// The command reads ANTHROPIC_API_KEY into Config.APIKey and
// ANTHROPIC_BASE_URL into Config.BaseURL; this package reads no
// environment itself. The SSE framing is parsed by internal/sse.
package anthropic

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

// DefaultBaseURL is Anthropic's own endpoint.
const DefaultBaseURL = "https://api.anthropic.com"

// APIVersion is the anthropic-version header this client speaks.
const APIVersion = "2023-06-01"

// DefaultMaxTokens is sent when a Request leaves MaxOutputTokens at 0:
// Anthropic, unlike the others, requires max_tokens on every request.
const DefaultMaxTokens = 8192

// Config configures a Client.
type Config struct {
	// BaseURL is the API root without the version, such as
	// "https://api.anthropic.com"; "/v1/messages" is appended. A trailing
	// slash is tolerated. Empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as x-api-key; empty sends none (a proxy that adds
	// its own, or an Authorization header set through Headers).
	APIKey string
	// Model is used when a Request names none.
	Model string
	// HTTPClient is used for requests; nil means transport.DefaultHTTPClient
	// (a 30 s connect timeout, no overall timeout). Its
	// Timeout, if any, bounds a whole stream, so leave it zero and use
	// StreamIdleTimeout or the context instead.
	HTTPClient *http.Client
	// Headers are added to every request and may override the defaults
	// (for example anthropic-beta).
	Headers map[string]string
	// ThinkingBudget, if positive, enables extended thinking with this
	// many budget tokens. Temperature is then not sent (the API rejects
	// it with thinking), and max_tokens is raised above the budget when
	// needed.
	ThinkingBudget int
	// StreamIdleTimeout aborts a request when no byte
	// arrives for this long, including while waiting for the response
	// headers. The error is a net.Error whose Timeout reports true.
	// Zero means transport.DefaultIdleTimeout (300 s); negative, none.
	StreamIdleTimeout time.Duration
	// MaxResponseBytes caps the bytes of one response body; past it the
	// stream ends with a *transport.ResponseTooLargeError. Zero means
	// transport.DefaultMaxResponseBytes; negative, no cap.
	MaxResponseBytes int64
}

// Client streams Messages responses. It is safe for concurrent use.
type Client struct {
	cfg Config
	url string
	tr  transport.Client
	// msgs keeps each history entry's encoded blocks between requests.
	msgs wirecache.Cache[encodedEntry]
	// head keeps the encoding of the rest of the request.
	head wirecache.Head[[]byte]
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	return &Client{cfg: cfg, url: base + "/v1/messages", tr: transport.Client{
		Provider:    provider,
		HTTP:        cfg.HTTPClient,
		IdleTimeout: cfg.StreamIdleTimeout,
		MaxBytes:    cfg.MaxResponseBytes,
		StatusError: statusError,
	}}
}

// Stream sends req and returns the streamed response. The request is made
// when the iteration starts. Text and thinking deltas are yielded as they
// arrive; a thinking block's signature is yielded as a ThoughtSignature
// chunk when it comes; a tool call is yielded once, complete, when its
// block stops; the finish reason comes with message_delta and usage last,
// in a chunk of its own.
//
// An error is yielded at most once, with a zero Chunk, and ends the
// stream. It is one of: *llm.APIError (an HTTP error or an error event),
// an error wrapping *llm.InvalidStreamError (unusable content; what could
// be used was yielded first), the context's error, or a transport error
// wrapped with %w. Stream never retries.
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
	h.Set("Anthropic-Version", APIVersion)
	if c.cfg.APIKey != "" {
		h.Set("X-Api-Key", c.cfg.APIKey)
	}
	for k, v := range c.cfg.Headers {
		h.Set(k, v)
	}
	return h
}

// IdleTimeoutError reports a stream that went silent for longer than
// Config.StreamIdleTimeout; see transport.IdleTimeoutError.
type IdleTimeoutError = transport.IdleTimeoutError
