package cli

import (
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/session"
)

// A headless --continue never restores a session's schedules: it says so
// on stderr, and leaves them for an interactive resume to offer.
func TestHeadlessContinueDoesNotRestoreSchedules(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	srv := fp.New(t, fp.Turn{fp.Text("hello")}, fp.Turn{fp.Text("again")})
	if r := runPlyHome(t, dir, home, srv, "-y", "-p", "hi"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions %v", files)
	}
	w, _, err := session.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	w.AppendSchedule(session.Schedule{ID: "loop-1", Kind: "loop", Spec: "every 5m0s", Every: "5m0s", Text: "check the deploy", Recurring: true, State: session.ScheduleCreated})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := runPlyHome(t, dir, home, srv, "-y", "--continue", "-p", "and now?")
	if r.code != 0 || r.stdout != "again\n" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "1 schedule") || !strings.Contains(r.stderr, "not restored") {
		t.Errorf("stderr %q", r.stderr)
	}
	tr, err := session.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Schedules) != 1 || tr.Schedules[0].ID != "loop-1" {
		t.Errorf("schedules after a headless resume %+v", tr.Schedules)
	}
}
