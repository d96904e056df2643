package sdk

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/headless"
)

// FuzzSDKControl feeds arbitrary control requests to the SDK endpoint:
// each gets exactly one well-formed control_response, never a panic.
func FuzzSDKControl(f *testing.F) {
	for _, seed := range []string{
		`{"subtype":"supported_commands"}`,
		`{"subtype":"set_effort","effort":"high"}`,
		`{"subtype":"set_effort","effort":7}`,
		`{"subtype":"get_usage_info","range":"week"}`,
		`{"subtype":"get_context_usage","show_details":true}`,
		`{"subtype":"continue_last_turn"}`,
		`{"subtype":"initialize","effort":"max","agents":[{"name":"x"}],"sdkMcpServers":{"a":{}}}`,
		`{"subtype":"mcp_server_status"}`,
		`null`, `[]`, `{"subtype":"nope"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		var out bytes.Buffer
		s := New(headless.Config{Format: headless.FormatStreamJSON, Stdout: &out, SessionID: "s"})
		s.handleControl(inMessage{Type: "control_request", RequestID: "r1", Request: req}, Controls{})
		s.initializing.Wait()
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 1 {
			t.Fatalf("%d lines for one request:\n%s", len(lines), out.String())
		}
		var m struct {
			Type     string `json:"type"`
			Response struct {
				Subtype   string `json:"subtype"`
				RequestID string `json:"request_id"`
			} `json:"response"`
		}
		if err := json.Unmarshal([]byte(lines[0]), &m); err != nil || m.Type != "control_response" ||
			m.Response.RequestID != "r1" || (m.Response.Subtype != "success" && m.Response.Subtype != "error") {
			t.Fatalf("answer %q (%v)", lines[0], err)
		}
	})
}

func TestSDKSubtypeUnion(t *testing.T) {
	for sub, want := range map[string]string{
		headless.SubtypeSuccess: headless.SubtypeSuccess, headless.SubtypeMaxTurns: headless.SubtypeMaxTurns,
		headless.SubtypeError: headless.SubtypeError, headless.SubtypeCancelled: headless.SubtypeError,
		headless.SubtypeMaxToolCalls: headless.SubtypeError, headless.SubtypeMaxWallTime: headless.SubtypeError,
		headless.SubtypeLoopDetected: headless.SubtypeError, headless.SubtypeStructuredFail: headless.SubtypeError,
	} {
		if got := sdkSubtype(sub); got != want {
			t.Errorf("sdkSubtype(%s) = %s, want %s", sub, got, want)
		}
	}
}
