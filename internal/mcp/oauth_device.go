package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// LoginDevice authorizes ply with the HTTP server cfg through the device
// authorization grant (RFC 8628), for machines without a browser: Notify
// shows the user a code and the page to enter it on (on any device), and
// ply polls until the user approves. ctx bounds the whole.
func LoginDevice(ctx context.Context, cfg ServerConfig, o LoginOptions) error {
	if cfg.URL == "" {
		return errors.New("only HTTP servers log in")
	}
	hc, tr := newHTTPClient(cfg)
	defer tr.CloseIdleConnections()
	prm, err := discoverResource(ctx, cfg.URL, hc)
	if err != nil {
		return err
	}
	asm, err := deviceServerMeta(ctx, prm.AuthorizationServers[0], hc)
	if err != nil {
		return err
	}
	name := o.ClientName
	if name == "" {
		name = "ply"
	}
	reg, err := oauthex.RegisterClient(ctx, asm.Registration, &oauthex.ClientRegistrationMetadata{
		ClientName: name, TokenEndpointAuthMethod: "none",
		GrantTypes: []string{"urn:ietf:params:oauth:grant-type:device_code", "refresh_token"},
	}, hc)
	if err != nil {
		return fmt.Errorf("registering ply with the authorization server: %w", err)
	}
	oc := &oauth2.Config{ClientID: reg.ClientID, ClientSecret: reg.ClientSecret, Scopes: prm.ScopesSupported,
		Endpoint: oauth2.Endpoint{DeviceAuthURL: asm.Device, TokenURL: asm.Token, AuthStyle: oauth2.AuthStyleInParams}}
	cctx := context.WithValue(ctx, oauth2.HTTPClient, hc)
	resource := oauth2.SetAuthURLParam("resource", prm.Resource)
	da, err := oc.DeviceAuth(cctx, resource)
	if err != nil {
		return fmt.Errorf("starting the device authorization: %w", err)
	}
	if o.Notify != nil {
		msg := fmt.Sprintf("To authorize ply, visit %s and enter the code %s", da.VerificationURI, da.UserCode)
		if da.VerificationURIComplete != "" {
			msg += " (or visit " + da.VerificationURIComplete + ")"
		}
		o.Notify(msg)
	}
	tok, err := oc.DeviceAccessToken(cctx, da, resource)
	if err != nil {
		return fmt.Errorf("waiting for the approval: %w", err)
	}
	return saveToken(tokenPath(o.Dir, cfg), &storedToken{ServerURL: cfg.URL, ClientID: reg.ClientID, ClientSecret: reg.ClientSecret,
		TokenURL: asm.Token, Scopes: oc.Scopes, Token: tok})
}

// discoverResource finds the server's protected resource metadata from
// the WWW-Authenticate header of its 401, or at the well-known address.
func discoverResource(ctx context.Context, serverURL string, hc *http.Client) (*oauthex.ProtectedResourceMetadata, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ply","version":"login"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reaching %s: %w", serverURL, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		return nil, fmt.Errorf("%s answered %s, not 401: it does not ask for authorization", serverURL, resp.Status)
	}
	var metaURL string
	if cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate")); err == nil {
		for _, c := range cs {
			if u := c.Params["resource_metadata"]; u != "" {
				metaURL = u
			}
		}
	}
	if metaURL == "" {
		u, err := url.Parse(serverURL)
		if err != nil {
			return nil, err
		}
		metaURL = u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.Path, "/")
	}
	prm, err := oauthex.GetProtectedResourceMetadata(ctx, metaURL, serverURL, hc)
	if err != nil {
		return nil, fmt.Errorf("reading the protected resource metadata: %w", err)
	}
	if prm == nil || len(prm.AuthorizationServers) == 0 {
		return nil, errors.New("the protected resource metadata names no authorization server")
	}
	return prm, nil
}

// deviceMeta is what the device flow needs of the authorization server's
// metadata.
type deviceMeta struct {
	Token        string `json:"token_endpoint"`
	Device       string `json:"device_authorization_endpoint"`
	Registration string `json:"registration_endpoint"`
}

// deviceServerMeta reads issuer's metadata (RFC 8414, then OpenID
// discovery) and checks that it offers the device flow.
func deviceServerMeta(ctx context.Context, issuer string, hc *http.Client) (*deviceMeta, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil, fmt.Errorf("the issuer %q: %w", issuer, err)
	}
	path := strings.TrimSuffix(u.Path, "/")
	base := u.Scheme + "://" + u.Host
	for _, loc := range []string{base + "/.well-known/oauth-authorization-server" + path, base + "/.well-known/openid-configuration" + path, base + path + "/.well-known/openid-configuration"} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, fmt.Errorf("reading the authorization server metadata: %w", err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			continue
		}
		var m deviceMeta
		if err := json.NewDecoder(bytes.NewReader(b)).Decode(&m); err != nil {
			return nil, fmt.Errorf("the authorization server metadata at %s: %w", loc, err)
		}
		switch {
		case m.Device == "":
			return nil, errors.New("the authorization server offers no device flow; run `ply mcp login` where a browser can reach this machine")
		case m.Registration == "":
			return nil, errors.New("the authorization server offers no dynamic client registration")
		}
		return &m, nil
	}
	return nil, fmt.Errorf("no authorization server metadata found for %s", issuer)
}
