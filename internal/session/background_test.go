package session

import "testing"

// A task last recorded running is one the writing process lost; the
// state survives a compaction, and rounds load without a warning.
func TestBackgroundTasksOnLoad(t *testing.T) {
	_, _, w := newSession(t, "bg")
	w.AppendBackground(Background{Task: "agent-1", Kind: "agent", Label: "scan", State: BackgroundRunning})
	w.AppendBackground(Background{Task: "agent-2", Kind: "agent", Label: "tests", State: BackgroundRunning})
	w.AppendCompaction(nil)
	w.AppendBackground(Background{Task: "agent-1", State: BackgroundFinished})
	w.AppendRound("notification", "agent agent-1")
	w.Append(user(text("agent-1 finished")))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Warnings) != 0 {
		t.Fatalf("warnings %v", tr.Warnings)
	}
	run := tr.Running()
	if len(run) != 1 || run[0].Task != "agent-2" || run[0].Label != "tests" || run[0].Kind != "agent" {
		t.Fatalf("running %+v", run)
	}
	if len(tr.Background) != 2 || tr.Background[0].Label != "scan" || tr.Background[0].State != BackgroundFinished {
		t.Fatalf("background %+v", tr.Background)
	}
}
