package settings

import (
	"path/filepath"
	"testing"
)

func TestCheckpointingDefaultsAndOverrides(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	s, _, err := Load(home, ws, true)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Checkpointing.IsEnabled() || s.Checkpointing.MaxFile() != 10<<20 || s.Checkpointing.Retention() != 30 {
		t.Fatalf("defaults: enabled %v, max %d, days %d", s.Checkpointing.IsEnabled(), s.Checkpointing.MaxFile(), s.Checkpointing.Retention())
	}
	write(t, filepath.Join(home, "settings.json"), `{"checkpointing": {"enabled": false, "retentionDays": 7}}`)
	write(t, filepath.Join(ws, ".ply", "settings.json"), `{"checkpointing": {"maxFileBytes": 1024}}`)
	s, _, err = Load(home, ws, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.Checkpointing.IsEnabled() || s.Checkpointing.MaxFile() != 1024 || s.Checkpointing.Retention() != 7 {
		t.Fatalf("merged: enabled %v, max %d, days %d", s.Checkpointing.IsEnabled(), s.Checkpointing.MaxFile(), s.Checkpointing.Retention())
	}
	write(t, filepath.Join(ws, ".ply", "settings.json"), `{"checkpointing": {"enabled": true}}`)
	if s, _, _ = Load(home, ws, true); !s.Checkpointing.IsEnabled() || s.Checkpointing.Retention() != 7 {
		t.Fatalf("project re-enabling: %+v", s.Checkpointing)
	}
}
