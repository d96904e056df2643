package mcp

// OAuth 2.1 for HTTP servers that require it. `ply mcp login NAME` runs
// the authorization code flow with PKCE through the SDK (discovery from
// the server's 401 and its protected resource metadata, dynamic client
// registration, the browser and a loopback redirect) and stores the token
// with 0600 under Options.OAuthDir; sessions send the stored token and
// refresh it, storing the new one. A session never starts a login: a
// server that asks for one fails with the command to run. Without a
// browser, LoginDevice runs the device authorization grant instead
// (oauth_device.go).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// ErrLoginNeeded: the server answered 401 and there is no usable token.
var ErrLoginNeeded = errors.New("the server requires authorization")

// storedToken is one server's file: what refreshing needs, and the token.
type storedToken struct {
	ServerURL    string        `json:"server_url"`
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	AuthURL      string        `json:"auth_url"`
	TokenURL     string        `json:"token_url"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

func (s *storedToken) config() *oauth2.Config {
	return &oauth2.Config{ClientID: s.ClientID, ClientSecret: s.ClientSecret,
		Endpoint: oauth2.Endpoint{AuthURL: s.AuthURL, TokenURL: s.TokenURL}, Scopes: s.Scopes}
}

// tokenPath is where cfg's token is kept under dir: the server's id and
// a hash of its URL, so that a server renamed to another URL starts over.
func tokenPath(dir string, cfg ServerConfig) string {
	sum := sha256.Sum256([]byte(cfg.URL))
	return filepath.Join(dir, sanitize(cfg.Name)+"-"+hex.EncodeToString(sum[:4])+".json")
}

func loadToken(path string) (*storedToken, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st storedToken
	if err := json.Unmarshal(b, &st); err != nil || st.Token == nil {
		return nil, fmt.Errorf("the token file %s is damaged; log in again", path)
	}
	return &st, nil
}

// saveToken writes st to path, readable by the user alone.
func saveToken(path string, st *storedToken) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating the token directory: %w", err)
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".token-*")
	if err != nil {
		return fmt.Errorf("storing the token: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("storing the token: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("storing the token: %w", err)
	}
	// CreateTemp makes the file 0600.
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("storing the token: %w", err)
	}
	return nil
}

// savingSource stores every new token its source hands out.
type savingSource struct {
	mu   sync.Mutex
	src  oauth2.TokenSource
	st   *storedToken
	path string
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	t, err := s.src.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Token == nil || t.AccessToken != s.st.Token.AccessToken {
		s.st.Token = t
		if err := saveToken(s.path, s.st); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// sessionAuth is the OAuth handler of a session's connection: the stored
// token (refreshed as needed), and on a 401 the advice to log in.
type sessionAuth struct {
	name string
	ts   oauth2.TokenSource // nil without a stored token
}

func (a *sessionAuth) TokenSource(context.Context) (oauth2.TokenSource, error) { return a.ts, nil }

func (a *sessionAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	_ = resp.Body.Close()
	return fmt.Errorf("%w: run `ply mcp login %s`", ErrLoginNeeded, a.name)
}

// newSessionAuth reads cfg's stored token from dir, if there is one.
func newSessionAuth(cfg ServerConfig, dir string, client *http.Client) *sessionAuth {
	a := &sessionAuth{name: cfg.Name}
	path := tokenPath(dir, cfg)
	st, err := loadToken(path)
	if err != nil {
		return a
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, client)
	a.ts = &savingSource{src: st.config().TokenSource(ctx, st.Token), st: st, path: path}
	return a
}

// LoginOptions configure Login.
type LoginOptions struct {
	// Dir is where tokens are stored ($PLY_HOME/mcp-oauth).
	Dir string
	// OpenURL opens the authorization page in a browser; when it fails
	// the user opens the URL Notify showed.
	OpenURL func(ctx context.Context, url string) error
	// Notify shows the user the authorization URL; may be nil.
	Notify func(url string)
	// ClientName is sent in the client registration; default "ply".
	ClientName string
}

// Login authorizes ply with the HTTP server cfg and stores the token.
// ctx bounds the whole flow, the user's approval included.
func Login(ctx context.Context, cfg ServerConfig, o LoginOptions) error {
	if cfg.URL == "" {
		return errors.New("only HTTP servers log in")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening for the redirect: %w", err)
	}
	redirect := fmt.Sprintf("http://%s/callback", ln.Addr())
	codes := make(chan *auth.AuthorizationResult, 1)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		if e := q.Get("error"); e != "" {
			http.Error(w, "authorization failed: "+e, http.StatusBadRequest)
			return
		}
		select {
		case codes <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
			_, _ = fmt.Fprintln(w, "ply is authorized. You can close this page.")
		default:
			http.Error(w, "already answered", http.StatusConflict)
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	hc, tr := newHTTPClient(cfg)
	defer tr.CloseIdleConnections()
	path := tokenPath(o.Dir, cfg)
	var saver *savingSource
	name := o.ClientName
	if name == "" {
		name = "ply"
	}
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: name, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		RedirectURL:         redirect,
		RequestRefreshToken: true,
		Client:              hc,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if o.Notify != nil {
				o.Notify(args.URL)
			}
			if o.OpenURL != nil {
				_ = o.OpenURL(ctx, args.URL) // the URL was shown: the user can open it
			}
			select {
			case res := <-codes:
				return res, nil
			case <-ctx.Done():
				return nil, fmt.Errorf("waiting for the authorization in the browser: %w", ctx.Err())
			}
		},
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			st := &storedToken{ServerURL: cfg.URL, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
				AuthURL: c.Endpoint.AuthURL, TokenURL: c.Endpoint.TokenURL, Scopes: c.Scopes}
			saver = &savingSource{src: c.TokenSource(ctx, t), st: st, path: path}
			return saver, nil
		},
	})
	if err != nil {
		return fmt.Errorf("setting up the authorization: %w", err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "ply", Version: "login"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: hc, OAuthHandler: h, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", cfg.URL, err)
	}
	_ = cs.Close()
	if saver == nil {
		return errors.New("the server did not ask for authorization; nothing to store")
	}
	if _, err := saver.Token(); err != nil {
		return fmt.Errorf("storing the token: %w", err)
	}
	return nil
}

// Logout removes cfg's stored token from dir.
func Logout(cfg ServerConfig, dir string) error {
	err := os.Remove(tokenPath(dir, cfg))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
