package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/llm"
)

func TestSummaryText(t *testing.T) {
	s := Summary{Elapsed: 75 * time.Second, Prompts: 1, Usage: llm.Usage{InputTokens: 35200, OutputTokens: 4100, CachedTokens: 20000},
		Cost: 0.1234, Priced: true}
	got := s.Text("abc-123")
	for _, want := range []string{"1m15s", "1 prompt ·", "35.2k in / 4.1k out tokens", "20.0k cached", "~$0.12", "Session abc-123", "resume with `ply -r abc-123`"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(Summary{Prompts: 2}.Text("x"), "$") {
		t.Error("a summary without prices shows a cost")
	}
}
