package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

func FuzzParseAddArgs(f *testing.F) {
	f.Add("-e\x00K=V\x00kb\x00--\x00cmd\x00-x")
	f.Add("--transport=http\x00-H\x00A: b\x00web\x00http://h/mcp")
	f.Add("-s\x00project\x00n\x00c")
	f.Fuzz(func(t *testing.T, line string) {
		a, err := ParseAddArgs(strings.Split(line, "\x00"))
		if err != nil {
			return
		}
		if a.Name == "" && len(a.Target) == 0 {
			t.Fatalf("parsed without a name or target: %+v", a)
		}
		raw, err := a.Entry()
		if err != nil {
			return
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("entry is not JSON: %v", err)
		}
	})
}
