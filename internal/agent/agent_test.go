package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadDefinitions(t *testing.T) {
	root := t.TempDir()
	user, project := filepath.Join(root, "user"), filepath.Join(root, "project")
	write(t, user, "reviewer.md", "---\nname: reviewer\ndescription: user's reviewer\n---\nUser prompt.\n")
	write(t, user, "tester.md", "---\r\nname: tester\r\ndescription: runs tests\r\ntools: Bash, read_file , Bash\r\nmodel: small-model\r\nmax_turns: 7\r\nisolation: worktree\r\n---\r\nRun the tests.\r\n")
	write(t, project, "reviewer.md", "---\nname: reviewer\ndescription: project's reviewer\ntools:\n  - Read\n  - grep_search\n---\n\nReview the diff.\nBe strict.\n")
	write(t, project, "notes.txt", "not a definition")
	write(t, project, "broken.md", "no front matter here")
	defs, errs := Load(user, project, filepath.Join(root, "missing"))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "broken.md") || !strings.Contains(errs[0].Error(), "front matter") {
		t.Fatalf("errs = %v", errs)
	}
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{Explore, GeneralPurpose, "reviewer", "tester"}) {
		t.Fatalf("names = %v", names)
	}
	rev, tst := defs[2], defs[3]
	if rev.Description != "project's reviewer" || rev.Prompt != "Review the diff.\nBe strict." || !slices.Equal(rev.Tools, []string{"Read", "grep_search"}) {
		t.Errorf("reviewer = %+v", rev)
	}
	if tst.Model != "small-model" || tst.MaxTurns != 7 || tst.Isolation != IsolationWorktree || rev.Isolation != "" || !slices.Equal(tst.Tools, []string{"Bash", "read_file"}) || tst.Prompt != "Run the tests." {
		t.Errorf("tester = %+v", tst)
	}
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ body, want string }{
		"no name":         {"---\ndescription: d\n---\nx", `needs "name"`},
		"bad name":        {"---\nname: Has Space\ndescription: d\n---\nx", "lower-case letters"},
		"no description":  {"---\nname: a\n---\nx", `needs "description"`},
		"unclosed":        {"---\nname: a\ndescription: d\n", "no closing ---"},
		"bad yaml":        {"---\nname: [a\n---\nx", "front matter"},
		"tools of a map":  {"---\nname: a\ndescription: d\ntools: {a: 1}\n---\nx", "tools:"},
		"negative turns":  {"---\nname: a\ndescription: d\nmax_turns: -1\n---\nx", "negative"},
		"bad isolation":   {"---\nname: a\ndescription: d\nisolation: container\n---\nx", `the only isolation is "worktree"`},
		"too big":         {"---\nname: a\ndescription: d\n---\n" + strings.Repeat("x", maxDefinitionFile), "more than"},
		"no front matter": {"# just markdown", "must start with front matter"},
	} {
		t.Run(name, func(t *testing.T) {
			p := write(t, dir, strings.ReplaceAll(name, " ", "_")+".md", tc.body)
			_, err := LoadFile(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("err = %v, want one naming the file and saying %q", err, tc.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	avail := []string{"read_file", "edit", "run_shell_command", Name, "grep_search"}
	names, unknown := Resolve(Definition{}, avail)
	if !slices.Equal(names, []string{"read_file", "edit", "run_shell_command", "grep_search"}) || unknown != nil {
		t.Errorf("all: %v %v", names, unknown)
	}
	names, unknown = Resolve(Definition{Tools: []string{"Read", "Edit", "MultiEdit", "agent", "Telepathy", "grep_search"}}, avail)
	if !slices.Equal(names, []string{"read_file", "edit", "grep_search"}) || !slices.Equal(unknown, []string{"Telepathy"}) {
		t.Errorf("listed: %v %v", names, unknown)
	}
}

// sleepy is a Runner whose subagents each take d, recording when they ran.
type sleepy struct {
	d     time.Duration   // how long a run takes, when meet is nil
	meet  *sync.WaitGroup // when set, each run waits until all have started
	mu    sync.Mutex
	spans map[string][2]time.Time
	tasks []Task
	fail  string
}

func (s *sleepy) Run(ctx context.Context, t Task) Report {
	start := time.Now()
	if s.meet != nil {
		// Wait until every expected run has started: runs that are not
		// parallel never meet, and the bound below only ends a broken test.
		s.meet.Done()
		met := make(chan struct{})
		go func() { s.meet.Wait(); close(met) }()
		select {
		case <-met:
		case <-time.After(30 * time.Second):
			return Report{Err: "the other subagent never started alongside this one", Subtype: "error_cancelled"}
		case <-ctx.Done():
			return Report{Err: "cancelled", Subtype: "error_cancelled"}
		}
	} else if s.d > 0 {
		select {
		case <-time.After(s.d):
		case <-ctx.Done():
			return Report{Err: "cancelled", Subtype: "error_cancelled"}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spans[t.Prompt] = [2]time.Time{start, time.Now()}
	s.tasks = append(s.tasks, t)
	if s.fail != "" && strings.Contains(t.Prompt, s.fail) {
		return Report{Text: "half done", Err: "reached the session turn limit", Subtype: "error_max_turns", Turns: 3}
	}
	return Report{Text: "report for " + t.Prompt, Turns: 2, ToolCalls: 1}
}

func TestParallelSubagentsThroughTheScheduler(t *testing.T) {
	r := &sleepy{meet: new(sync.WaitGroup), spans: map[string][2]time.Time{}}
	r.meet.Add(2)
	reg := tools.NewRegistry(NewTool(Builtin(), r))
	s := scheduler.New(reg, scheduler.WithPolicy(scheduler.YOLO{}))
	calls, err := s.Run(context.Background(), []scheduler.Request{
		{CallID: "call_a", Name: Name, Args: `{"description":"first","prompt":"task A"}`},
		{CallID: "call_b", Name: Name, Args: `{"description":"second","prompt":"task B","subagent_type":"general-purpose"}`},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"report for task A", "report for task B"} {
		resp := calls[i].Response()
		if resp.ID != []string{"call_a", "call_b"}[i] || resp.IsError || resp.Output != want {
			t.Errorf("result %d = %+v, want %q", i, resp, want)
		}
	}
	for _, task := range r.tasks {
		if task.CallID != map[string]string{"task A": "call_a", "task B": "call_b"}[task.Prompt] {
			t.Errorf("task %q got call id %q", task.Prompt, task.CallID)
		}
	}
}

func TestToolErrors(t *testing.T) {
	r := &sleepy{spans: map[string][2]time.Time{}, fail: "doomed"}
	tool := NewTool(Builtin(), r)
	ctx := context.Background()
	run := func(args string) tools.Result {
		res, err := tool.Execute(ctx, json.RawMessage(args), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run(`{"description":"x","prompt":"p","subagent_type":"wizard"}`); !res.IsError || !strings.Contains(res.Output, `no subagent named "wizard"`) || !strings.Contains(res.Output, GeneralPurpose) {
		t.Errorf("unknown subagent: %+v", res)
	}
	if res := run(`{"description":"x","prompt":"  "}`); !res.IsError || !strings.Contains(res.Output, "prompt is empty") {
		t.Errorf("empty prompt: %+v", res)
	}
	if res := run(`{"description":"x","prompt":"doomed task"}`); !res.IsError || res.ErrorType != "SUBAGENT_FAILED" ||
		!strings.Contains(res.Output, "error_max_turns") || !strings.Contains(res.Output, "half done") {
		t.Errorf("failed subagent: %+v", res)
	}
	cctx, cancel := context.WithCancel(ctx)
	r.d = time.Minute
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	start := time.Now()
	if _, err := tool.Execute(cctx, json.RawMessage(`{"description":"x","prompt":"long"}`), nil); err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("cancel: err %v after %v", err, time.Since(start))
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.Schema(), &schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	if !strings.Contains(tool.Description(), "- "+GeneralPurpose+": ") {
		t.Errorf("description does not list the subagents:\n%s", tool.Description())
	}
}
