package checkpoint

import (
	"context"
	"errors"
	"testing"
)

// A checkpoint that only has what was saved ahead of it (ply stopped
// before storing it) is offered as what a restore would make of the
// state given: that state with the saved files as they were, and the
// files saved as absent gone.
func TestLoadOrSavedAheadOfACheckpointNeverStored(t *testing.T) {
	c := newAheadCase(t, Options{})
	ctx := context.Background()
	c.save(t)
	c.writeBatch(t)
	s2, err := Open(c.dir, Options{}) // the first Store never stores it
	must(t, err)
	defer s2.Close()
	now, err := s2.Checkpoint(ctx, []string{c.root})
	must(t, err)
	cur, err := s2.Load(now.ID)
	must(t, err)

	m, partial, err := s2.LoadOrSavedAhead(c.id, cur)
	must(t, err)
	if !partial {
		t.Fatal("not said to be partial")
	}
	var paths []string
	for _, ch := range Diff(m, cur) {
		paths = append(paths, string(ch.Op)+" "+ch.Rel)
	}
	if len(paths) != 2 || paths[0] != "+ lib/new.go" || paths[1] != "M main.go" {
		t.Errorf("changes from the partial checkpoint to now: %q, want an added lib/new.go and a modified main.go", paths)
	}

	// A stored checkpoint is itself, not partial.
	m, partial, err = s2.LoadOrSavedAhead(now.ID, cur)
	if err != nil || partial || m.ID != now.ID {
		t.Errorf("a stored checkpoint: %v, partial %v, %v", m, partial, err)
	}
	// Neither stored nor saved ahead: not found.
	if _, _, err := s2.LoadOrSavedAhead(s2.NewID(), cur); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown checkpoint: %v, want ErrNotFound", err)
	}
}
