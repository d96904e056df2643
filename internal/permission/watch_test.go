package permission

import (
	"slices"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

type modeLog [][2]Mode

func (l *modeLog) ModeChanged(from, to Mode) { *l = append(*l, [2]Mode{from, to}) }

// Every change of mode reaches every watcher once, in order; setting the
// mode it already has is no change, and an invalid mode changes nothing.
func TestWatchersSeeEveryChange(t *testing.T) {
	root, _ := testWorkspace(t)
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{Workspace: ws, Mode: ModeDefault})
	if err != nil {
		t.Fatal(err)
	}
	var a, b modeLog
	p.Watch(&a)
	p.Watch(&b)
	for _, m := range []Mode{ModePlan, ModePlan, ModeAutoEdit, Mode(99), ModeDefault} {
		_ = p.SetMode(m)
	}
	want := modeLog{{ModeDefault, ModePlan}, {ModePlan, ModeAutoEdit}, {ModeAutoEdit, ModeDefault}}
	if !slices.Equal(a, want) || !slices.Equal(b, want) {
		t.Errorf("watchers saw %v and %v, want %v", a, b, want)
	}
}
