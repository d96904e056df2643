package core

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/transport"
)

// modelListing is a provider that can list its endpoint's models (GET
// /models of OpenAI-compatible servers, Anthropic's and Gemini's lists).
type modelListing interface {
	ListModels(ctx context.Context) ([]string, error)
}

// ErrNoModelList says the provider or its endpoint lists no models.
var ErrNoModelList = errors.New("this endpoint does not list its models")

// EndpointModels asks the provider's endpoint which models it serves.
// The error is one line for the user: ErrNoModelList when the provider
// has no list or the endpoint answered that it has none, a refused key,
// or what else went wrong.
func (c *Session) EndpointModels(ctx context.Context) ([]string, error) {
	l, ok := c.chat.Provider().(modelListing)
	if !ok {
		return nil, ErrNoModelList
	}
	ids, err := l.ListModels(ctx)
	if err != nil {
		return nil, listError(err)
	}
	return ids, nil
}

// listError is a failed list's error, in words for the user.
func listError(err error) error {
	var ae *llm.APIError
	if errors.As(err, &ae) {
		switch ae.Status {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
			return fmt.Errorf("%w (HTTP %d)", ErrNoModelList, ae.Status)
		case http.StatusUnauthorized, http.StatusForbidden:
			return fmt.Errorf("the endpoint refused to list its models (HTTP %d): check the API key", ae.Status)
		}
	}
	return fmt.Errorf("listing the endpoint's models: %w", err)
}

// WarmProvider opens, in the background, the connection the session's
// next request needs, when none is open: while the session is built and
// while the user types a prompt, so that the request does not wait for
// the name lookup and the handshakes (transport.Warm). It returns at once.
func (c *Session) WarmProvider() {
	transport.Warm(c.cfg.Endpoint.BaseURL)
}
