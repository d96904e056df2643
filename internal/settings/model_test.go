package settings

import (
	"os"
	"path/filepath"
	"testing"
)

func TestModelTakesNameOrObject(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".ply"), 0o755)
	os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"model": {"name": "a", "skipLoopDetection": false, "streamIdleTimeout": "2s"}}`), 0o644)
	os.WriteFile(filepath.Join(ws, ".ply", "settings.json"), []byte(`{"model": "b"}`), 0o644)
	s, _, err := Load(home, ws, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.Model.Name != "b" {
		t.Errorf("name = %q, want the project's b", s.Model.Name)
	}
	if s.Model.SkipLoopDetection == nil || *s.Model.SkipLoopDetection {
		t.Errorf("skipLoopDetection = %v, want false from the user's file", s.Model.SkipLoopDetection)
	}
	if s.Model.StreamIdleTimeout != "2s" {
		t.Errorf("streamIdleTimeout = %q", s.Model.StreamIdleTimeout)
	}
}

func TestModelOfWrongTypeIsLocated(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "settings.json"), []byte("{\n  \"model\": 5\n}"), 0o644)
	_, _, err := Load(home, t.TempDir(), true)
	se, ok := err.(*SyntaxError)
	if !ok {
		t.Fatalf("err = %v, want a *SyntaxError", err)
	}
	if se.Line != 2 {
		t.Errorf("line = %d, want 2 (%v)", se.Line, se)
	}
}
