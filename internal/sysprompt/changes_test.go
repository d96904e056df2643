package sysprompt

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestChanges(t *testing.T) {
	was := &Repo{Branch: "main", Git: true, Commits: []string{"abc first"}, Listing: []string{"main.go"}}
	if got := was.Changes(was); got != "" {
		t.Errorf("an unchanged repository gives a note: %q", got)
	}
	now := &Repo{Branch: "main", Git: true, Status: []string{" M main.go", "?? new.go"}, Commits: was.Commits, Listing: []string{"main.go", "new.go"}}
	got := was.Changes(now)
	for _, want := range []string{"<system-reminder>", "(2 files changed state)", "   M main.go\n", "  ?? new.go\n", "- Top level now: main.go new.go\n", "</system-reminder>"} {
		if !strings.Contains(got, want) {
			t.Errorf("the note lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "commits") || strings.Contains(got, "Branch") {
		t.Errorf("the note tells of what did not change:\n%s", got)
	}
	// A git that did not answer now says nothing of status and commits.
	late := &Repo{Branch: "main", Listing: was.Listing, Notes: []string{"git status was not read"}}
	if got := was.Changes(late); got != "" {
		t.Errorf("a snapshot without git gives a note: %q", got)
	}
	moved := &Repo{Branch: "topic", Git: true, Commits: []string{"def second", "abc first"}, Listing: was.Listing}
	got = was.Changes(moved)
	for _, want := range []string{"- Branch now: topic\n", "- Recent commits now:\n  def second\n  abc first\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the note lacks %q:\n%s", want, got)
		}
	}
}

// The snapshot a transcript records comes back as it was.
func TestRepoJSONRoundTrip(t *testing.T) {
	r := &Repo{Branch: "main", Git: true, Status: []string{" M a"}, StatusMore: 2, Commits: []string{"c"}, Listing: []string{"a", "d/"}, ListMore: 1, Notes: []string{"n"}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Repo
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, &back) || Build(Env{Workspace: "/w", Now: time.Unix(0, 0), Repo: r}) != Build(Env{Workspace: "/w", Now: time.Unix(0, 0), Repo: &back}) {
		t.Errorf("round trip: %+v -> %s -> %+v", r, b, back)
	}
}
