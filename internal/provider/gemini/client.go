// Package gemini is ply's client for the Gemini API's streaming endpoint,
// POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse.
//
// It owns the wire format: converting a provider-neutral llm.Request into
// a generateContent request (system instruction, user/model contents,
// function calls and responses paired in order, thought signatures on the
// parts they came with, tool schemas cut down to the subset Gemini
// accepts), and decoding the stream back into llm.Chunks and
// *llm.APIError. It must not retry, log, keep state between calls, or
// know about history repair, tools or the chat loop.
//
// It is a thin client on net/http rather than the official SDK
// (google.golang.org/genai):
//
//   - Retries belong to the chat layer alone, which honours Retry-After
//     and never replays a stream whose first chunk was shown. genai has
//     retry settings of its own in its HTTP options, which ply would have
//     to keep switched off, and audit, release after release; here a
//     failure reaches the caller once, unretried.
//   - ply needs each part as it arrives, with its thoughtSignature kept on
//     exactly the part it came with (Gemini 3 rejects a function call
//     sent back without it). genai's typed structs and helper accessors
//     (Text(), FunctionCalls()) flatten parts, which is the opposite.
//   - Transport errors must keep their identity (errors.Is with
//     io.ErrUnexpectedEOF or syscall.ECONNRESET, net.Error.Timeout) for the
//     chat layer's transport whitelist; genai wraps them in its APIError.
//   - genai pulls in the Google auth stack (oauth2, cloud metadata) that an
//     API-key client does not need, and ply wants a fast start.
//
// The command reads GEMINI_API_KEY into Config.APIKey and, when set,
// GOOGLE_GEMINI_BASE_URL into Config.BaseURL; this package reads no
// environment itself. The SSE framing (CRLF, no [DONE]) is parsed by
// internal/sse.
package gemini

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
	"github.com/plyhq/ply/internal/provider/wirecache"
)

// DefaultBaseURL is Google's own endpoint.
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// Config configures a Client.
type Config struct {
	// BaseURL is the API root without the version, such as
	// "https://generativelanguage.googleapis.com"; the version, model and
	// method are appended. A trailing slash is tolerated. Empty means
	// DefaultBaseURL.
	BaseURL string
	// APIKey is sent as x-goog-api-key; empty sends none (a proxy that
	// adds its own).
	APIKey string
	// Model is used when a Request names none. A "models/" prefix is
	// tolerated.
	Model string
	// HTTPClient is used for requests; nil means transport.DefaultHTTPClient
	// (a 30 s connect timeout, no overall timeout). Its
	// Timeout, if any, bounds a whole stream, so leave it zero and use
	// StreamIdleTimeout or the context instead.
	HTTPClient *http.Client
	// Headers are added to every request and may override the defaults.
	Headers map[string]string
	// IncludeThoughts asks thinking models for thought summaries, which
	// are streamed as Chunk.Thought. Off by default: models without
	// thinking reject the setting.
	IncludeThoughts bool
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

// Client streams generateContent responses. It is safe for concurrent
// use.
type Client struct {
	cfg  Config
	base string
	tr   transport.Client
	// msgs keeps each history entry's encoded parts between requests.
	msgs wirecache.Cache[encodedEntry]
	// head keeps the encoding of the rest of the request.
	head wirecache.Head[encodedHead]
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	return &Client{cfg: cfg, base: base, tr: transport.Client{
		Provider:    provider,
		HTTP:        cfg.HTTPClient,
		IdleTimeout: cfg.StreamIdleTimeout,
		MaxBytes:    cfg.MaxResponseBytes,
		StatusError: statusError,
	}}
}

// endpoint returns the streaming URL for model.
func (c *Client) endpoint(model string) string {
	model = strings.TrimPrefix(model, "models/")
	return c.base + "/v1beta/models/" + url.PathEscape(model) + ":streamGenerateContent?alt=sse"
}

// Stream sends req and returns the streamed response. The request is made
// when the iteration starts. Each part is yielded as soon as its event is
// decoded: text as Chunk.Text, thoughts as Chunk.Thought, a part's
// thoughtSignature as Chunk.ThoughtSignature beside it (on a function
// call, as FunctionCall.Signature), and each function call once, with an
// id made up by the client when the server gave none. The finish reason
// follows the parts of its event; usage comes last, in a chunk of its own.
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
		model, payload, err := c.encode(req)
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}

		s, err := c.tr.Post(ctx, c.endpoint(model), c.header(), payload...)
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		defer s.Close()
		y := s.Watch(yield) // the rest of a stream given up is not read
		if err := decodeStream(s.Body, newCallID, y); err != nil {
			yield(llm.Chunk{}, s.Fail(err))
		}
	}
}

// header returns the headers sent with every request, over the
// transport's defaults.
func (c *Client) header() http.Header {
	h := http.Header{}
	if c.cfg.APIKey != "" {
		h.Set("X-Goog-Api-Key", c.cfg.APIKey)
	}
	for k, v := range c.cfg.Headers {
		h.Set(k, v)
	}
	return h
}

// IdleTimeoutError reports a stream that went silent for longer than
// Config.StreamIdleTimeout; see transport.IdleTimeoutError.
type IdleTimeoutError = transport.IdleTimeoutError
