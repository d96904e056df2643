package permission

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
)

// web_fetch sends data off the machine: it asks in every mode but yolo,
// and the reason shows the whole URL, query string included.
func TestWebFetchAsksWithTheFullURL(t *testing.T) {
	root, _ := testWorkspace(t)
	const u = "https://example.com/path?token=abc&next=%2Fx#frag"
	for _, tt := range []struct {
		mode             Mode
		allow, ask, deny []string
		url              string
		want             scheduler.Verdict
		reason           string
	}{
		{mode: ModeDefault, url: u, want: askV, reason: u},
		{mode: ModeAutoEdit, url: u, want: askV, reason: u},
		{mode: ModePlan, url: u, want: askV, reason: u},
		{mode: ModeYOLO, url: u, want: allowV},
		{mode: ModeDefault, url: "example.com/no-scheme", want: askV, reason: "example.com/no-scheme"},
		{mode: ModeDefault, url: u, allow: []string{"WebFetch(domain:example.com)"}, want: allowV, reason: "WebFetch(domain:example.com)"},
		{mode: ModeDefault, url: "https://EXAMPLE.com./x", allow: []string{"WebFetch(domain:example.com)"}, want: allowV},
		{mode: ModeDefault, url: "https://api.example.com/x", allow: []string{"WebFetch(domain:example.com)"}, want: askV},
		{mode: ModeDefault, url: "https://api.example.com/x", allow: []string{"WebFetch(domain:*.example.com)"}, want: allowV},
		{mode: ModeDefault, url: "https://example.com.evil.test/", allow: []string{"WebFetch(domain:example.com)"}, want: askV},
		{mode: ModeDefault, url: "https://example.com@evil.test/", allow: []string{"WebFetch(domain:example.com)"}, want: askV},
		{mode: ModeDefault, url: "not a url at all", allow: []string{"WebFetch(domain:example.com)"}, want: askV},
		{mode: ModeYOLO, url: u, ask: []string{"WebFetch(domain:example.com)"}, want: askV},
		{mode: ModeYOLO, url: u, deny: []string{"WebFetch(domain:example.com)"}, want: denyV},
		{mode: ModeDefault, url: u, allow: []string{"WebFetch"}, deny: []string{"WebFetch(domain:example.com)"}, want: denyV},
		{mode: ModeAutoEdit, url: u, allow: []string{"WebFetch"}, want: allowV},
	} {
		p := newPolicy(t, root, tt.mode, tt.allow, tt.ask, tt.deny)
		v, reason := p.Check(context.Background(), call(t, ToolWebFetch, args{"url": tt.url, "prompt": "p"}))
		if v != tt.want || !strings.Contains(reason, tt.reason) {
			t.Errorf("%s %q allow=%v ask=%v deny=%v: %s (%q), want %s with %q",
				tt.mode, tt.url, tt.allow, tt.ask, tt.deny, verdictName(v), reason, verdictName(tt.want), tt.reason)
		}
	}
}

// "Allow always" for web_fetch is for the URL's host, not for every URL.
func TestWebFetchAllowAlwaysIsPerDomain(t *testing.T) {
	root, _ := testWorkspace(t)
	p := newPolicy(t, root, ModeDefault, nil, nil, nil)
	fetch := func(u string) *scheduler.Call { return call(t, ToolWebFetch, args{"url": u, "prompt": "p"}) }
	p.AllowAlways(fetch("https://Docs.Example.com/a?b=c"))
	p.AllowAlways(fetch("::not a url"))
	if got, want := p.SessionRules(), []string{"WebFetch(domain:docs.example.com)"}; !slices.Equal(got, want) {
		t.Fatalf("session rules %q, want %q", got, want)
	}
	for u, want := range map[string]scheduler.Verdict{
		"https://docs.example.com/other":      allowV,
		"http://docs.example.com:8080/":       allowV,
		"https://example.com/":                askV,
		"https://evil.test/?docs.example.com": askV,
	} {
		if v, reason := p.Check(context.Background(), fetch(u)); v != want {
			t.Errorf("%s: %s (%s), want %s", u, verdictName(v), reason, verdictName(want))
		}
	}
}

// FuzzWebFetchAllowAlways: whatever the URL, the rule "allow always" adds
// parses, allows that URL again, and allows no URL of another host.
func FuzzWebFetchAllowAlways(f *testing.F) {
	for _, u := range []string{"https://example.com/a?b=c", "example.com", "http://[::1]:8080/", "https://a.b.c./x",
		"https://user@host/", "ftp://x", "%", "https://EXAMPLE.com", "https://xn--bcher-kva.example/", "https://例え.jp/"} {
		f.Add(u, "https://other.test/")
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, u, other string) {
		p := newPolicy(t, root, ModeDefault, nil, nil, nil)
		c := call(t, ToolWebFetch, args{"url": u, "prompt": "p"})
		p.AllowAlways(c)
		rules := p.SessionRules()
		host, ok := urlHost(u)
		if len(rules) == 0 {
			if ok {
				if _, err := ParseRule("WebFetch(domain:" + host + ")"); err == nil {
					t.Fatalf("%q has host %q, yet no rule was added", u, host)
				}
			}
			return
		}
		if v, reason := p.Check(context.Background(), c); v != allowV {
			t.Fatalf("%q: rules %q, then %s (%s)", u, rules, verdictName(v), reason)
		}
		oh, ok := urlHost(other)
		if ok && !matchDomain(strings.TrimSuffix(strings.ToLower(host), "."), oh) {
			if v, _ := p.Check(context.Background(), call(t, ToolWebFetch, args{"url": other, "prompt": "p"})); v == allowV {
				t.Fatalf("rules %q from %q allow %q", rules, u, other)
			}
		}
	})
}
