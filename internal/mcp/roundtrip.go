package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// RoundTrip carries one JSON-RPC message to a server that lives in
// another process ply does not run (an SDK's embedded server, reached
// through the SDK's control protocol) and returns the server's answer to a
// request; the answer to a notification is ignored.
type RoundTrip func(ctx context.Context, msg json.RawMessage) (json.RawMessage, error)

// EmbeddedServer configures a server reached through rt. Its caller
// supplied it, so it is trusted as a server of --mcp-config marked trust.
func EmbeddedServer(name string, rt RoundTrip) ServerConfig {
	return ServerConfig{Name: name, ID: sanitize(name), RoundTrip: rt, Trust: true}
}

// roundTripTransport is a connection whose every request is one round trip.
type roundTripTransport struct{ rt RoundTrip }

func (t roundTripTransport) Connect(context.Context) (sdk.Connection, error) {
	return &rtConn{rt: t.rt, in: make(chan jsonrpc.Message, 16), done: make(chan struct{})}, nil
}

type rtConn struct {
	rt   RoundTrip
	in   chan jsonrpc.Message // answers, for Read
	done chan struct{}
	once sync.Once
}

func (c *rtConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write sends msg; a request's answer arrives later through Read, so that
// concurrent calls do not wait for each other.
func (c *rtConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding an MCP message: %w", err)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		// A notification or a response of ours: nothing comes back.
		go func() { _, _ = c.rt(context.WithoutCancel(ctx), b) }()
		return nil
	}
	go func() {
		var ans jsonrpc.Message
		raw, err := c.rt(context.WithoutCancel(ctx), b)
		if err == nil {
			ans, err = jsonrpc.DecodeMessage(raw)
		}
		if err != nil {
			ans = &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -32603, Message: err.Error()}}
		}
		select {
		case c.in <- ans:
		case <-c.done:
		}
	}()
	return nil
}

func (c *rtConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (c *rtConn) SessionID() string { return "" }
