package mcp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func raw(t testing.TB, s string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParseServers(t *testing.T) {
	t.Setenv("PLY_TEST_TOKEN", "tok")
	t.Setenv("PLY_TEST_DIR", "/srv")
	got, err := ParseServers(raw(t, `{
		"files": {"command": "npx", "args": ["-y", "server", "${PLY_TEST_DIR}/data"], "env": {"KEY": "$PLY_TEST_TOKEN", "D": "${PLY_TEST_UNSET:-fallback}"}, "cwd": "$PLY_TEST_DIR", "timeout": 1500, "trust": true, "includeTools": ["read"], "excludeTools": ["write"]},
		"web": {"httpUrl": "https://example.test/mcp", "headers": {"Authorization": "Bearer ${PLY_TEST_TOKEN}"}},
		"auto": {"url": "http://127.0.0.1:9/mcp"},
		"typed": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
		"old": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
		"off": {"command": "x", "enabled": false},
		"off2": {"command": "x", "disabled": true},
		"my.server": {"command": "x", "alwaysAllow": ["unknown fields are ignored"]}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	f := got["files"]
	if f.Transport != TransportStdio || f.Command != "npx" || strings.Join(f.Args, " ") != "-y server /srv/data" ||
		f.Env["KEY"] != "tok" || f.Env["D"] != "fallback" || f.Cwd != "/srv" || f.Timeout != 1500*time.Millisecond ||
		!f.Trust || f.IncludeTools[0] != "read" || f.ExcludeTools[0] != "write" || f.ID != "files" {
		t.Errorf("files = %+v", f)
	}
	if w := got["web"]; w.Transport != TransportHTTP || w.URL != "https://example.test/mcp" || w.Headers["Authorization"] != "Bearer tok" {
		t.Errorf("web = %+v", w)
	}
	if got["auto"].Transport != TransportAuto || got["typed"].Transport != TransportHTTP || got["old"].Transport != TransportSSE {
		t.Errorf("transports: auto %q typed %q old %q", got["auto"].Transport, got["typed"].Transport, got["old"].Transport)
	}
	if !got["off"].Disabled || !got["off2"].Disabled || got["files"].Disabled {
		t.Error("enabled/disabled not honoured")
	}
	if s := got["my.server"]; s.ID != "my_server" || s.Name != "my.server" {
		t.Errorf("sanitised id: %+v", s)
	}
}

func TestParseServersErrors(t *testing.T) {
	cases := []struct{ name, entry, want string }{
		{"none", `{}`, `mcpServers.none: needs "command" or "url"`},
		{"both", `{"command": "x", "url": "http://a/"}`, `mcpServers.both: has both "command" and "url"`},
		{"urls", `{"url": "http://a/", "httpUrl": "http://a/"}`, `has both "url" and "httpUrl"`},
		{"badurl", `{"url": "ftp://a/"}`, `mcpServers.badurl.url: "ftp://a/" is not an http or https URL`},
		{"badtype", `{"type": "websocket", "url": "http://a/"}`, `mcpServers.badtype.type: unknown transport "websocket"`},
		{"stdiourl", `{"type": "stdio", "url": "http://a/"}`, `mcpServers.stdiourl.type: is "stdio" but there is no "command"`},
		{"timeout", `{"command": "x", "timeout": -1}`, `mcpServers.timeout.timeout: must be milliseconds`},
		{"args", `{"command": "x", "args": "not a list"}`, `mcpServers.args: invalid server entry`},
		{"notobj", `"npx server"`, `mcpServers.notobj: the entry must be a JSON object`},
		{"null", `null`, `mcpServers.null: the entry must be a JSON object`},
		{"emptycmd", `{"command": "$PLY_TEST_NOPE"}`, `mcpServers.emptycmd.command: "$PLY_TEST_NOPE" expands to an empty string`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseServers(map[string]json.RawMessage{c.name: json.RawMessage(c.entry), "ok": json.RawMessage(`{"command":"x"}`)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Server != c.name {
				t.Errorf("not a *ConfigError for %q: %#v", c.name, err)
			}
			if _, ok := got["ok"]; !ok || len(got) != 1 {
				t.Errorf("valid servers not kept: %v", got)
			}
		})
	}
}

func TestParseServersNameClash(t *testing.T) {
	got, err := ParseServers(raw(t, `{"a.b": {"command": "x"}, "a_b": {"command": "y"}, "": {"command": "z"}}`))
	if err == nil || !strings.Contains(err.Error(), `mcpServers.a_b: name is the same as "a.b"`) || !strings.Contains(err.Error(), "name is empty") {
		t.Fatalf("err = %v", err)
	}
	if len(got) != 1 || got["a.b"].Command != "x" {
		t.Errorf("got %v", got)
	}
}

func TestParseConfigFlag(t *testing.T) {
	const wrapped = `{"mcpServers": {"fs": {"command": "fs-server"}}}`
	const bare = `{"fs": {"command": "fs-server"}}`
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(file, []byte(wrapped), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{"inline": wrapped, "bare": "  " + bare, "file": file} {
		got, err := ParseConfigFlag(in)
		if err != nil || got["fs"].Command != "fs-server" || len(got) != 1 {
			t.Errorf("%s: %v %v", name, got, err)
		}
	}
	for in, want := range map[string]string{
		"":                                "--mcp-config: empty value",
		`{"mcpServers": `:                 "--mcp-config: inline JSON: invalid JSON",
		`{"mcpServers": []}`:              `"mcpServers" must be an object`,
		filepath.Join(dir, "nope.json"):   "--mcp-config: reading the configuration file",
		`{"mcpServers": {"x": {}}}`:       `mcpServers.x: needs "command" or "url"`,
		`{"mcpServers": {"x": 1}, "y":2}`: `mcpServers.x: the entry must be a JSON object`,
	} {
		if _, err := ParseConfigFlag(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseConfigFlag(%q) = %v, want %q", in, err, want)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseConfigFlag(bad); err == nil || !strings.Contains(err.Error(), bad+": invalid JSON") {
		t.Errorf("bad file: %v", err)
	}
}

func TestExpandEnv(t *testing.T) {
	env := map[string]string{"A": "1", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for in, want := range map[string]string{
		"$A":              "1",
		"${A}x":           "1x",
		"$NOPE":           "",
		"${NOPE:-def}":    "def",
		"${EMPTY:-def}":   "def",
		"${A:-def}":       "1",
		"no vars":         "no vars",
		"cost $$":         "cost ",
		"http://h/${A}/p": "http://h/1/p",
	} {
		if got := expandEnv(in, lookup); got != want {
			t.Errorf("expandEnv(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseServers(f *testing.F) {
	f.Add(`{"a": {"command": "x", "args": ["$A"], "env": {"K": "${B:-c}"}}}`)
	f.Add(`{"b": {"url": "http://h/", "type": "sse", "timeout": 5}}`)
	f.Add(`{"mcpServers": {"c.d": {"httpUrl": "https://h/", "headers": {"X": "y"}}}}`)
	f.Add(`{"e": null, "f": []}`)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := decodeServers([]byte(s))
		if err != nil {
			return
		}
		got, _ := ParseServers(m)
		ids := map[string]bool{}
		for name, sc := range got {
			if sc.Name != name || sc.ID != sanitize(name) || ids[sc.ID] {
				t.Fatalf("bad entry %q: %+v", name, sc)
			}
			ids[sc.ID] = true
			if (sc.Command == "") == (sc.URL == "") {
				t.Fatalf("%q: need exactly one of command and url: %+v", name, sc)
			}
			if sc.Timeout < 0 {
				t.Fatalf("negative timeout %v", sc.Timeout)
			}
			n := ToolName(sc.ID, "tool")
			if len(n) > MaxToolNameLen || sanitize(n) != n {
				t.Fatalf("tool name %q", n)
			}
		}
	})
}
