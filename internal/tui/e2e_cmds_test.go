package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestTmuxCustomCommandBangExport drives the real binary: a project
// custom command with $ARGUMENTS, a !cmd whose output reaches the model
// with the next prompt, and /export writing the conversation.
func TestTmuxCustomCommandBangExport(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	for name, body := range map[string]string{
		filepath.Join(dir, ".ply", "commands", "review.md"): "---\ndescription: Review a file\nargument-hint: [file]\n---\nReview $ARGUMENTS carefully.\n",
		filepath.Join(home, "commands", "team", "hello.md"): "Say hello to $1.",
		filepath.Join(dir, ".ply", "commands", "bad.md"):    "---\ndescription: ok\nmodel: a: b\n---\nbody\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := fp.New(t,
		fp.Turn{fp.Text("Looks fine to me."), fp.Usage(50, 5)},
		fp.Turn{fp.Text("Noted the listing."), fp.Usage(60, 5)},
	)
	x := startPly(t, bin, dir, srv, 100, 30, []string{"PLY_HOME=" + home}, "--trust-workspace")
	x.waitFor("/help for help")
	// A malformed command is reported with its file and line, and skipped.
	// The line breaks between words where it meets the screen's edge.
	x.waitScreen("the front matter error", func(s string) bool {
		return strings.Contains(strings.Join(strings.Fields(s), " "), "bad.md:3: front matter")
	})
	x.waitFor("(skipped)")

	x.submit("/help")
	s := x.waitFor("Custom commands:")
	for _, want := range []string{"/review [file]", "Review a file (project)", "/team:hello"} {
		if !strings.Contains(s, want) {
			t.Errorf("/help lacks %q:\n%s", want, s)
		}
	}

	x.submit("/review main.go")
	x.waitFor("Looks fine to me.")
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Raw), "Review main.go carefully.") {
		t.Fatalf("the expansion was not sent: %d requests\n%s", len(reqs), reqs[0].Raw)
	}

	x.submit("!echo listing-$((40+2))")
	x.waitFor("listing-42")
	x.submit("what did you see?")
	x.waitFor("Noted the listing.")
	if reqs := srv.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Raw), "listing-42") {
		t.Fatalf("the !cmd output did not reach the model")
	}

	x.submit("/export chat.md")
	x.waitFor("written to")
	got, err := os.ReadFile(filepath.Join(dir, "chat.md"))
	if err != nil {
		t.Fatalf("/export wrote nothing: %v\n%s", err, x.screen())
	}
	for _, want := range []string{"## User\n\nReview main.go carefully.", "## Assistant\n\nLooks fine to me.", "listing-42", "Noted the listing."} {
		if !strings.Contains(string(got), want) {
			t.Errorf("export lacks %q:\n%s", want, got)
		}
	}

	// /diff compares with the checkpoint of the first prompt: a file made
	// since shows with its content.
	x.submit("!echo fresh-line > notes.txt")
	x.waitFor("(no output)")
	x.submit("/diff")
	// A long diff reaches the screen in pieces: wait for its last file's.
	x.waitFor("changed in this session")
	s = x.waitFor("1 + fresh-line")
	for _, want := range []string{"+ notes.txt", "1 + fresh-line", "+ chat.md"} {
		if !strings.Contains(s, want) {
			t.Errorf("/diff lacks %q:\n%s", want, s)
		}
	}
}
