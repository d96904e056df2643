package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// In a 16k-token window, a model paging through a large file gets each
// page it asks for readable: the older pages are cut and the older
// conversation summarised to make room, not the newest page, which keeps
// at least a quarter of the window.
func TestContextPressureKeepsTheNewestResult(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	var big strings.Builder
	for i := range 1200 {
		fmt.Fprintf(&big, "line %04d %s\n", i, strings.Repeat("x", 90))
	}
	writeFile(t, filepath.Join(dir, "big.txt"), big.String(), 0o644)
	srv := fp.New(t)
	writeFile(t, filepath.Join(home, "settings.json"), `{"provider": "small", "modelProviders": {"small": {
		"authType": "openai", "baseUrl": "`+srv.URL+`", "apiKeyEnv": "OPENAI_API_KEY", "model": "small-model",
		"contextWindow": 16000}}}`, 0o644)

	// The main requests carry ply's system prompt; the summary requests
	// the summary instructions. Each turn answers only its kind.
	main := fp.When("You are ply, a coding agent")
	const pages = 5
	// What the model says along the way fills the older history.
	notes := strings.Repeat("notes on the file so far ", 120)
	var turns []fp.Turn
	for i := range pages {
		turns = append(turns, fp.Turn{main, fp.Text(fmt.Sprintf("Reading page %d. %s", i, notes)),
			fp.ToolCall(fmt.Sprintf("p%d", i), "read_file", fmt.Sprintf(`{"file_path":"big.txt","offset":%d,"limit":200}`, i*200))})
	}
	turns = append(turns, fp.Turn{main, fp.Text("done.")})
	for i := range pages {
		turns = append(turns, fp.Turn{fp.When("Summarise the conversation so far"), fp.Text(fmt.Sprintf("SUMMARY %d: the model is reading big.txt page by page.", i))})
	}
	srv.Append(turns...)

	r := runPlyHome(t, dir, home, srv, "-y", "-p", "read big.txt page by page")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	summaries := 0
	for n, req := range srv.Requests() {
		msgs := req.Messages
		last := msgs[len(msgs)-1]
		if last.Role != "tool" {
			if strings.Contains(last.Text(), "Summarise the conversation so far") {
				summaries++
			}
			continue
		}
		got, total := len(last.Text()), len(req.Raw)
		var older []int
		for _, m := range msgs[:len(msgs)-1] {
			if m.Role == "tool" {
				older = append(older, len(m.Text()))
			}
		}
		t.Logf("request %d: newest result %s %d bytes (cut: %v), older results %v, request %d bytes", n, last.ToolCallID, got, strings.Contains(last.Text(), "were cut"), older, total)
		// A page of 200 lines is about 20 KB; its floor in a 16k window
		// is about 16 KB.
		if got < 16000 {
			t.Errorf("request %d carries the newest result %s with %d bytes; it must stay readable", n, last.ToolCallID, got)
		}
	}
	if summaries == 0 {
		t.Error("no summary was made: the pages cannot all fit a 16k window")
	}
}
