package core

import (
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/session"
)

// TestTUIResumeOfHeldSessionRefused: /resume goes through the same lock,
// and the UI gets the same message.
func TestTUIResumeOfHeldSessionRefused(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	id := "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
	w, err := session.Create(home, root, id, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, err = switchSession(&Config{Home: home}, &Session{}, root, id, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(err.Error(), "--fork-session") {
		t.Fatalf("/resume of a held session: %v", err)
	}
}
