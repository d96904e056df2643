package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolName(t *testing.T) {
	if got := ToolName("github", "create_issue"); got != "mcp__github__create_issue" {
		t.Errorf("plain: %q", got)
	}
	if got := ToolName("my.server", "get file/v2"); got != "mcp__my_server__get_file_v2" {
		t.Errorf("sanitised: %q", got)
	}
	long := strings.Repeat("x", 80)
	a, b := ToolName("srv", long), ToolName("srv", long+"y")
	if len(a) != MaxToolNameLen || len(b) != MaxToolNameLen || a == b {
		t.Errorf("truncation: %q %q", a, b)
	}
	if a != ToolName("srv", long) {
		t.Error("truncation not deterministic")
	}
	if !strings.HasPrefix(a, "mcp__srv__xxxx") {
		t.Errorf("truncated name lost its prefix: %q", a)
	}
	if got := ToolName("s", "ünïcode"); got != "mcp__s___n_code" {
		t.Errorf("non-ASCII: %q", got)
	}
}

func TestUniqueName(t *testing.T) {
	taken := map[string]bool{}
	n1 := uniqueName(ToolName("s", "a.b"), "s\x00a.b", taken)
	taken[n1] = true
	n2 := uniqueName(ToolName("s", "a_b"), "s\x00a_b", taken)
	taken[n2] = true
	if n1 != "mcp__s__a_b" || n2 == n1 || !strings.HasPrefix(n2, "mcp__s__a_b_") || len(n2) > MaxToolNameLen {
		t.Errorf("collision: %q %q", n1, n2)
	}
	long := ToolName("s", strings.Repeat("z", 100))
	taken[long] = true
	n3 := uniqueName(long, "other", taken)
	if n3 == long || len(n3) > MaxToolNameLen {
		t.Errorf("long collision: %q", n3)
	}
}

func TestToolsNameCollision(t *testing.T) {
	// Two tools whose names sanitise alike, and a server whose name makes
	// a third alike across servers ("x" + "a__b" vs "x__a" + "b").
	m := &Manager{names: []string{"x", "x__a"}, servers: map[string]*server{}}
	mk := func(name string, tools ...string) {
		s := &server{cfg: ServerConfig{Name: name, ID: name}, done: make(chan struct{}), dead: make(chan struct{})}
		close(s.done)
		for _, tn := range tools {
			s.listed = append(s.listed, &sdk.Tool{Name: tn, InputSchema: map[string]any{"type": "object"}})
		}
		m.servers[name] = s
	}
	mk("x", "a__b", "a.b", "a_b")
	mk("x__a", "b")
	ts, fails := m.Tools(t.Context())
	if len(fails) != 0 || len(ts) != 4 {
		t.Fatalf("%d tools, fails %v", len(ts), fails)
	}
	seen := map[string]bool{}
	for _, x := range ts {
		if seen[x.Name()] {
			t.Errorf("duplicate %q", x.Name())
		}
		seen[x.Name()] = true
	}
	// Sorted: "a.b" < "a__b" < "a_b"; the first keeps the plain name.
	if ts[0].Name() != "mcp__x__a_b" || ts[0].(*Tool).RemoteName() != "a.b" || ts[1].Name() != "mcp__x__a__b" {
		t.Errorf("order: %q %q", ts[0].Name(), ts[1].Name())
	}
	again, _ := m.Tools(t.Context())
	for i := range ts {
		if again[i].Name() != ts[i].Name() {
			t.Errorf("names differ between calls: %q %q", again[i].Name(), ts[i].Name())
		}
	}
}

func TestObjectSchema(t *testing.T) {
	for in, want := range map[string]string{
		`null`:                    `{"properties":{},"type":"object"}`,
		`{}`:                      `{"properties":{},"type":"object"}`,
		`{"type":"object"}`:       `{"properties":{},"type":"object"}`,
		`{"properties":{"a":{}}}`: `{"properties":{"a":{}},"type":"object"}`,
		`{"type":"string"}`:       `{"properties":{},"type":"object"}`,
		`[1,2]`:                   `{"properties":{},"type":"object"}`,
		`{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}}`: `{"properties":{"a":{"type":"string"}},"required":["a"],"type":"object"}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatal(err)
		}
		if got := string(objectSchema(v)); got != want {
			t.Errorf("objectSchema(%s) = %s, want %s", in, got, want)
		}
	}
}
