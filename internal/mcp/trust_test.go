package mcp

import (
	"context"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// A server's readOnlyHint makes its tool read-only, and so approved in
// default and plan mode, only when the user trusts the server; trusted or
// not, the hint lets calls run in parallel. Reading resources is read-only
// only when every server offering them is trusted; listing always is.
func TestReadOnlyHintCountsOnlyWhenTrusted(t *testing.T) {
	trusted := stdioServer(t, "mine", "stdio")
	trusted.Trust = true
	m, ts, fails := startTools(t, map[string]ServerConfig{"mine": trusted, "theirs": stdioServer(t, "theirs", "stdio")})
	if len(fails) != 0 {
		t.Fatalf("failures: %v", fails)
	}
	for _, c := range []struct {
		name     string
		kind     tools.Kind
		parallel bool
	}{
		{"mcp__mine__echo", tools.KindRead, true},
		{"mcp__theirs__echo", tools.KindOther, true},
		{"mcp__mine__fail", tools.KindOther, false},
		{"mcp__theirs__fail", tools.KindOther, false},
	} {
		tl := ts[c.name]
		if tl == nil {
			t.Fatalf("no tool %s in %v", c.name, keys(ts))
		}
		if tl.Kind() != c.kind || tl.ConcurrencySafe(nil) != c.parallel {
			t.Errorf("%s: kind %v, parallel %v; want %v, %v", c.name, tl.Kind(), tl.ConcurrencySafe(nil), c.kind, c.parallel)
		}
	}

	rs := ResourceTools(context.Background(), m)
	if len(rs) != 2 {
		t.Fatalf("resource tools = %v", rs)
	}
	if rs[0].Kind() != tools.KindRead || rs[1].Kind() != tools.KindOther {
		t.Errorf("with an untrusted server: list %v, read %v; want read, other", rs[0].Kind(), rs[1].Kind())
	}
	if cs, ok := rs[1].(tools.ConcurrencySafe); !ok || !cs.ConcurrencySafe(nil) {
		t.Error("reading a resource should run in parallel")
	}

	only, _, _ := startTools(t, map[string]ServerConfig{"mine": trusted})
	if rs := ResourceTools(context.Background(), only); len(rs) != 2 || rs[1].Kind() != tools.KindRead {
		t.Errorf("with only a trusted server: resource tools %v, want reading to be read-only", rs)
	}
}
