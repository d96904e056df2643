package headless

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
)

func TestAbbreviateKeepsValidUTF8(t *testing.T) {
	s := strings.Repeat("é", 100) // two bytes each
	for n := 1; n < 50; n++ {
		got := abbreviate(s, n)
		if !utf8.ValidString(got) || len(got) > n+len("…") {
			t.Fatalf("abbreviate(%d) = %q", n, got)
		}
	}
	if got := abbreviate("a  b\n c", 10); got != "a b c" {
		t.Fatalf("whitespace not collapsed: %q", got)
	}
}

// recorder is a loop.Recorder that keeps the rounds and results it is
// told of.
type recorder struct {
	mu     sync.Mutex
	rounds []inbox.Round
	kept   []llm.Part
	fail   error // every checkpoint's error
}

func (r *recorder) Checkpoint() error { return r.fail }
func (r *recorder) Compressed()       {}
func (r *recorder) Cancelled(string)  {}

func (r *recorder) Keep(p []llm.Part) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kept = append(r.kept, p...)
}

func (r *recorder) Round(rd inbox.Round) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rounds = append(r.rounds, rd)
}

func (r *recorder) recorded() []inbox.Round {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]inbox.Round(nil), r.rounds...)
}
