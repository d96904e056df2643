package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// authServer is an MCP server behind an in-process OAuth 2.1
// authorization server: protected resource and authorization server
// metadata, dynamic client registration, an authorization endpoint that
// approves at once (the "browser"), and a token endpoint that checks PKCE
// and refreshes.
type authServer struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	// challenge of the code issued, by code.
	challenges map[string]string
	issued     int // access tokens issued
	valid      map[string]bool
	refreshes  int
	registered int
	// approved: the user entered the device code.
	approved bool
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t, challenges: map[string]string{}, valid: map[string]bool{}}
	mcpSrv := newTestServer(false)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcpSrv }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		ok := a.valid[tok]
		a.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": a.srv.URL + "/mcp", "authorization_servers": []string{a.srv.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": a.srv.URL, "authorization_endpoint": a.srv.URL + "/authorize", "token_endpoint": a.srv.URL + "/token",
			"registration_endpoint": a.srv.URL + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
			"token_endpoint_auth_methods_supported": []string{"none"},
			"device_authorization_endpoint":         a.srv.URL + "/device",
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var md struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		_ = json.NewDecoder(r.Body).Decode(&md)
		if len(md.RedirectURIs) > 1 || (len(md.RedirectURIs) == 1 && !strings.HasPrefix(md.RedirectURIs[0], "http://127.0.0.1:")) {
			http.Error(w, "bad redirect", http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		a.registered++
		a.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, map[string]any{"client_id": "client-1", "redirect_uris": md.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/device", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.Form.Get("client_id") != "client-1" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]any{"device_code": "dev-1", "user_code": "WDJB-MJHT", "verification_uri": a.srv.URL + "/activate", "expires_in": 60, "interval": 1})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("client_id") != "client-1" {
			http.Error(w, "PKCE required", http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		code := fmt.Sprintf("code-%d", len(a.challenges))
		a.challenges[code] = q.Get("code_challenge")
		a.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if want := a.challenges[r.Form.Get("code")]; want == "" || base64.RawURLEncoding.EncodeToString(sum[:]) != want {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			delete(a.challenges, r.Form.Get("code"))
		case "urn:ietf:params:oauth:grant-type:device_code":
			if r.Form.Get("device_code") != "dev-1" {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			if !a.approved {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"authorization_pending"}`))
				return
			}
		case "refresh_token":
			if r.Form.Get("refresh_token") != "refresh-1" {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			a.refreshes++
		default:
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
			return
		}
		a.issued++
		tok := fmt.Sprintf("access-%d", a.issued)
		a.valid[tok] = true
		writeJSON(w, map[string]any{"access_token": tok, "token_type": "Bearer", "refresh_token": "refresh-1", "expires_in": 3600})
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		a.srv.CloseClientConnections()
		a.srv.Close()
	})
	return a
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// browser "opens" the authorization URL: it follows the redirects to the
// loopback callback, as a browser whose user approves would.
func browser(ctx context.Context, u string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func TestOAuthLoginAndRefresh(t *testing.T) {
	a := newAuthServer(t)
	dir := filepath.Join(t.TempDir(), "mcp-oauth")
	cfg := ServerConfig{Name: "remote", ID: "remote", Transport: TransportHTTP, URL: a.srv.URL + "/mcp"}

	// Before logging in, the server fails with the way out.
	o := testOptions()
	o.OAuthDir = dir
	m := Start(context.Background(), map[string]ServerConfig{"remote": cfg}, o)
	_, fails := m.Tools(context.Background())
	_ = m.Close()
	if len(fails) != 1 || !strings.Contains(fails[0].Err.Error(), "ply mcp login remote") {
		t.Fatalf("before login: %v", fails)
	}

	var shown string
	err := Login(context.Background(), cfg, LoginOptions{Dir: dir, OpenURL: browser, Notify: func(u string) { shown = u }})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if !strings.Contains(shown, "/authorize?") || !strings.Contains(shown, "code_challenge=") {
		t.Errorf("the user was shown %q", shown)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("token dir mode %v", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), "refresh-1") || !strings.Contains(string(b), "access-1") {
		t.Errorf("stored: %s", b)
	}

	// A session uses the stored token.
	m = Start(context.Background(), map[string]ServerConfig{"remote": cfg}, o)
	ts, fails := m.Tools(context.Background())
	_ = m.Close()
	if len(fails) != 0 || len(ts) == 0 {
		t.Fatalf("with the token: %v", fails)
	}

	// An expired token is refreshed, and the new one stored.
	var st storedToken
	_ = json.Unmarshal(b, &st)
	st.Token.Expiry = time.Now().Add(-time.Hour)
	b, _ = json.Marshal(st)
	_ = os.WriteFile(files[0], b, 0o600)
	m = Start(context.Background(), map[string]ServerConfig{"remote": cfg}, o)
	_, fails = m.Tools(context.Background())
	_ = m.Close()
	if len(fails) != 0 || a.refreshes != 1 {
		t.Fatalf("refresh: %v, %d refreshes", fails, a.refreshes)
	}
	b, _ = os.ReadFile(files[0])
	if !strings.Contains(string(b), "access-2") {
		t.Errorf("the refreshed token was not stored: %s", b)
	}

	if err := Logout(cfg, dir); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(files) != 0 {
		t.Errorf("logout left %v", files)
	}
}

func TestOAuthLoginCancelled(t *testing.T) {
	a := newAuthServer(t)
	cfg := ServerConfig{Name: "remote", ID: "remote", Transport: TransportHTTP, URL: a.srv.URL + "/mcp"}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	// The user never approves.
	err := Login(ctx, cfg, LoginOptions{Dir: t.TempDir(), OpenURL: func(context.Context, string) error { return nil }})
	if err == nil {
		t.Fatal("login without approval succeeded")
	}
}

// On a machine without a browser, the device flow: the user is shown a
// code to enter elsewhere, and ply polls until it is approved.
func TestOAuthDeviceLogin(t *testing.T) {
	a := newAuthServer(t)
	dir := t.TempDir()
	cfg := ServerConfig{Name: "remote", ID: "remote", Transport: TransportHTTP, URL: a.srv.URL + "/mcp"}
	var shown string
	err := LoginDevice(context.Background(), cfg, LoginOptions{Dir: dir, Notify: func(s string) {
		shown = s
		a.mu.Lock()
		a.approved = true
		a.mu.Unlock()
	}})
	if err != nil {
		t.Fatalf("device login: %v", err)
	}
	if !strings.Contains(shown, "WDJB-MJHT") || !strings.Contains(shown, "/activate") {
		t.Errorf("the user was shown %q", shown)
	}
	o := testOptions()
	o.OAuthDir = dir
	m := Start(context.Background(), map[string]ServerConfig{"remote": cfg}, o)
	ts, fails := m.Tools(context.Background())
	_ = m.Close()
	if len(fails) != 0 || len(ts) == 0 {
		t.Fatalf("with the device token: %v", fails)
	}
}
