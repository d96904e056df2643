package tools

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// backendServer answers as one search service does, after checking the
// request carries the query and the key where that service expects them.
func backendServer(t *testing.T, provider string) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		fail := func(why string) {
			t.Errorf("%s: %s", provider, why)
			http.Error(w, why, http.StatusBadRequest)
		}
		switch provider {
		case "tavily":
			var body struct {
				Query      string `json:"query"`
				MaxResults int    `json:"max_results"`
			}
			b, _ := io.ReadAll(r.Body)
			if r.Method != http.MethodPost || json.Unmarshal(b, &body) != nil || body.Query != "go generics" || body.MaxResults != 3 {
				fail("bad request " + string(b))
				return
			}
			if r.Header.Get("Authorization") != "Bearer tvly-key" {
				fail("no key")
				return
			}
			io.WriteString(w, `{"query":"go generics","answer":null,"results":[`+
				`{"title":"Tutorial: Getting started with generics","url":"https://go.dev/doc/tutorial/generics","content":"This tutorial introduces the basics of generics in Go.","score":0.98},`+
				`{"title":"Second","url":"https://example.com/2","content":"two","score":0.5}],"response_time":0.9}`)
		case "brave":
			if q.Get("q") != "go generics" || q.Get("count") != "3" || r.Header.Get("X-Subscription-Token") != "brave-key" {
				fail("bad request " + r.URL.String())
				return
			}
			io.WriteString(w, `{"type":"search","query":{"original":"go generics"},"web":{"type":"search","results":[`+
				`{"title":"Tutorial: Getting started with <strong>generics</strong>","url":"https://go.dev/doc/tutorial/generics","description":"This tutorial introduces the basics of <strong>generics</strong> in Go &amp; more.","language":"en"}]}}`)
		case "searxng":
			if r.URL.Path != "/searx/search" || q.Get("q") != "go generics" || q.Get("format") != "json" {
				fail("bad request " + r.URL.String())
				return
			}
			io.WriteString(w, `{"query":"go generics","number_of_results":0,"results":[`+
				`{"url":"https://go.dev/doc/tutorial/generics","title":"Tutorial: Getting started with generics","content":"This tutorial introduces the basics of generics in Go.","engine":"duckduckgo","score":1.0}],"answers":[],"suggestions":[]}`)
		case "google":
			if q.Get("q") != "go generics" || q.Get("key") != "g-key" || q.Get("cx") != "engine-1" || q.Get("num") != "3" {
				fail("bad request " + r.URL.String())
				return
			}
			io.WriteString(w, `{"kind":"customsearch#search","items":[`+
				`{"kind":"customsearch#result","title":"Tutorial: Getting started with generics","link":"https://go.dev/doc/tutorial/generics","snippet":"This tutorial introduces the basics of generics in Go.","displayLink":"go.dev"}]}`)
		}
	}))
}

func TestWebSearchBackends(t *testing.T) {
	for _, c := range []struct {
		provider string
		opts     WebSearchOptions
		path     string
	}{
		{"tavily", WebSearchOptions{APIKey: "tvly-key"}, ""},
		{"brave", WebSearchOptions{APIKey: "brave-key"}, ""},
		{"searxng", WebSearchOptions{}, "/searx"},
		{"google", WebSearchOptions{APIKey: "g-key", EngineID: "engine-1"}, ""},
	} {
		t.Run(c.provider, func(t *testing.T) {
			srv := backendServer(t, c.provider)
			defer srv.Close()
			o := c.opts
			o.Provider, o.BaseURL, o.MaxResults = c.provider, srv.URL+c.path, 3
			ws, err := NewWebSearch(o)
			if err != nil {
				t.Fatal(err)
			}
			r, err := ws.Execute(context.Background(), json.RawMessage(`{"query":"go generics"}`), nil)
			if err != nil || r.IsError {
				t.Fatalf("%+v %v", r, err)
			}
			for _, want := range []string{"1. Tutorial: Getting started with generics", "   https://go.dev/doc/tutorial/generics", "introduces the basics of generics in Go"} {
				if !strings.Contains(r.Output, want) {
					t.Errorf("output lacks %q:\n%s", want, r.Output)
				}
			}
			if strings.Contains(r.Output, "<strong>") || strings.Contains(r.Output, "&amp;") {
				t.Errorf("markup in the output:\n%s", r.Output)
			}
		})
	}
}

func TestWebSearchErrors(t *testing.T) {
	for _, o := range []WebSearchOptions{
		{Provider: "altavista", APIKey: "k"},
		{Provider: "tavily"},
		{Provider: "searxng"},
		{Provider: "google", APIKey: "k"},
	} {
		if _, err := NewWebSearch(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"API key not valid: g-secret"}}`, http.StatusForbidden)
	}))
	defer srv.Close()
	ws, _ := NewWebSearch(WebSearchOptions{Provider: "google", APIKey: "g-secret", EngineID: "e", BaseURL: srv.URL})
	r, err := ws.Execute(context.Background(), json.RawMessage(`{"query":"x"}`), nil)
	if err != nil || !r.IsError || !strings.Contains(r.Output, "403") {
		t.Fatalf("%+v %v", r, err)
	}
	if strings.Contains(r.Output, "g-secret") {
		t.Errorf("the key leaked into the result: %s", r.Output)
	}
	r, _ = ws.Execute(context.Background(), json.RawMessage(`{"query":"  "}`), nil)
	if !r.IsError {
		t.Error("an empty query was sent")
	}
	if ws.Kind() != KindFetch {
		t.Error("web_search must ask as a fetch does")
	}
}

func FuzzWebSearchParse(f *testing.F) {
	for _, s := range []string{`{"results":[{"title":"t","url":"u","content":"c"}]}`, `{"web":{"results":[{"title":"<b>x</b>"}]}}`, `{"items":[{}]}`, `[]`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, b := range searchBackends {
			rs, err := b.parse([]byte(body))
			if err == nil {
				_ = FormatResults("q", rs)
			}
		}
	})
}
