package ide

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkStatus is what the TUI's footer pays on every frame to say
// whether the editor is connected.
func BenchmarkStatus(b *testing.B) {
	c := New(Options{})
	for b.Loop() {
		_ = c.Status().State == Connected
	}
}

// BenchmarkTakeContext is what a user query pays for the editor's
// context: the delta of ten open files, the active one with a selection.
func BenchmarkTakeContext(b *testing.B) {
	var files []map[string]any
	for i := range MaxOpenFiles {
		files = append(files, map[string]any{"path": fmt.Sprintf("/w/pkg/file%d.go", i), "timestamp": 100 - i,
			"isActive": i == 0, "selectedText": "func f() {}", "cursor": map[string]any{"line": 3, "character": 1}})
	}
	raw, _ := json.Marshal(map[string]any{"workspaceState": map[string]any{"openFiles": files}})
	c := New(Options{})
	for b.Loop() {
		ctx, err := ParseContext(raw)
		if err != nil {
			b.Fatal(err)
		}
		c.mu.Lock()
		c.cur, c.hasCur, c.sent = ctx, true, nil
		c.mu.Unlock()
		if c.TakeContext() == "" {
			b.Fatal("no context")
		}
	}
}
