package session

import (
	"errors"
	"testing"
)

func TestTitles(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	paths := store(t, home, ws, "aaa-1", "bbb-2", "ccc-3")
	name := func(id, title string) {
		w, _, err := Open(paths[id])
		if err != nil {
			t.Fatal(err)
		}
		w.AppendTitle(title)
		mustClose(t, w)
	}
	name("aaa-1", "first try")
	name("aaa-1", "Auth refactor") // the last name holds
	name("bbb-2", "twin")
	name("ccc-3", "twin")
	if s, err := Find(home, ws, "auth REFACTOR"); err != nil || s.ID != "aaa-1" || s.Title != "Auth refactor" {
		t.Fatalf("Find by name = %+v, %v", s, err)
	}
	if _, err := Find(home, ws, "twin"); !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("two sessions of one name: %v", err)
	}
	if _, err := Find(home, ws, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no such name: %v", err)
	}
	w, tr, err := Open(paths["aaa-1"])
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, w)
	if tr.Title != "Auth refactor" {
		t.Fatalf("loaded title %q", tr.Title)
	}
	for _, bad := range []string{"", "  ", "two\nlines", string(make([]rune, MaxTitle+1))} {
		if CheckTitle(bad) == nil {
			t.Errorf("CheckTitle(%q) accepted", bad)
		}
	}
}
