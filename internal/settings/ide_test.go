package settings

import (
	"path/filepath"
	"testing"
)

func TestIDEOnUnlessTurnedOff(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	s, _, err := Load(home, ws, true)
	if err != nil || !s.IDE.On() {
		t.Fatalf("default: on %v, err %v", s.IDE.On(), err)
	}
	write(t, filepath.Join(home, "settings.json"), `{"ide": {"enabled": false}}`)
	s, files, err := Load(home, ws, true)
	if err != nil || s.IDE.On() {
		t.Fatalf("turned off: on %v, err %v", s.IDE.On(), err)
	}
	for _, f := range files {
		if len(f.Unknown) > 0 {
			t.Fatalf("ide.enabled reported unknown: %v", f.Unknown)
		}
	}
	write(t, filepath.Join(ws, ".ply", "settings.json"), `{"ide": {}}`)
	if s, _, _ = Load(home, ws, true); s.IDE.On() {
		t.Fatal("a file without ide.enabled turned it back on")
	}
}
