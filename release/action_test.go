package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// action is the part of action.yml the tests read.
type action struct {
	Inputs map[string]struct {
		Required bool
		Default  string
	}
	Runs struct {
		Using string
		Steps []struct {
			ID, Shell, Run string
			Env            map[string]string
		}
	}
}

func readAction(t *testing.T) action {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

var exprRE = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// expand evaluates the expressions action.yml uses: inputs.NAME and
// github.token. Any other expression fails the test.
func expand(t *testing.T, s string, inputs map[string]string) string {
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		e := exprRE.FindStringSubmatch(m)[1]
		switch {
		case strings.HasPrefix(e, "inputs."):
			v, ok := inputs[strings.TrimPrefix(e, "inputs.")]
			if !ok {
				t.Errorf("action.yml uses the undeclared %s", e)
			}
			return v
		case e == "github.token":
			return "test-token"
		}
		t.Errorf("action.yml uses %q, which this test cannot evaluate", e)
		return ""
	})
}

// runAction runs action.yml's steps as a runner would, with with as the
// inputs and env beside a fake GITHUB_* environment, and returns the
// exit code of the first step that failed (0 when none did).
func runAction(t *testing.T, with, env map[string]string, github map[string]string) (code int, log string) {
	t.Helper()
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs using %q, want composite", a.Runs.Using)
	}
	inputs := map[string]string{}
	for name, in := range a.Inputs {
		inputs[name] = expand(t, in.Default, nil)
	}
	for k, v := range with {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("input %q is not declared in action.yml", k)
		}
		inputs[k] = v
	}
	for name, in := range a.Inputs {
		if in.Required && inputs[name] == "" {
			t.Fatalf("required input %q not given", name)
		}
	}
	var sb strings.Builder
	for _, st := range a.Runs.Steps {
		if st.Shell != "bash" {
			t.Fatalf("step %s: shell %q, want bash", st.ID, st.Shell)
		}
		cmd := exec.Command("bash", "-e", "-c", expand(t, st.Run, inputs))
		cmd.Dir = github["GITHUB_WORKSPACE"]
		cmd.Env = os.Environ()
		for k, v := range github {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		for k, v := range st.Env {
			cmd.Env = append(cmd.Env, k+"="+expand(t, v, inputs))
		}
		out, err := cmd.CombinedOutput()
		sb.WriteString("== " + st.ID + "\n" + string(out))
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode(), sb.String()
			}
			t.Fatalf("step %s: %v", st.ID, err)
		}
	}
	return 0, sb.String()
}

// fakeGitHub is a runner's GITHUB_* environment for a pull_request event
// on pull request 7, with an API server that records comments.
type fakeGitHub struct {
	env      map[string]string
	mu       sync.Mutex
	comments []string // "path auth body"
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	g := &fakeGitHub{}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var c struct{ Body string }
		if r.Method != http.MethodPost || json.Unmarshal(b, &c) != nil {
			http.Error(w, "unexpected", http.StatusBadRequest)
			return
		}
		g.mu.Lock()
		g.comments = append(g.comments, r.URL.Path+" "+r.Header.Get("Authorization")+" "+c.Body)
		g.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"id": 1}`)
	}))
	t.Cleanup(api.Close)
	tmp := t.TempDir()
	event := filepath.Join(tmp, "event.json")
	if err := os.WriteFile(event, []byte(`{"pull_request": {"number": 7}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runner := filepath.Join(tmp, "runner")
	if err := os.Mkdir(runner, 0o755); err != nil {
		t.Fatal(err)
	}
	g.env = map[string]string{
		"GITHUB_ACTION_PATH":  moduleRoot(),
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   event,
		"GITHUB_API_URL":      api.URL,
		"GITHUB_REPOSITORY":   "octo/repo",
		"GITHUB_OUTPUT":       filepath.Join(tmp, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(tmp, "summary.md"),
		"GITHUB_PATH":         filepath.Join(tmp, "path"),
		"RUNNER_TEMP":         runner,
		"HOME":                filepath.Join(tmp, "home"),
		"PLY_HOME":            filepath.Join(tmp, "plyhome"),
		"GITHUB_WORKSPACE":    t.TempDir(),
	}
	return g
}

func (g *fakeGitHub) file(t *testing.T, key string) string {
	b, err := os.ReadFile(g.env[key])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func actionTools(t *testing.T) {
	installTools(t)
	for _, p := range []string{"bash", "jq"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("the action's steps need %s, which is not on PATH", p)
		}
	}
}

// TestActionReviewsPullRequest installs ply from the release through the
// action, runs a prompt against the fake provider, and wants the answer
// in the job summary, the outputs and a comment on the pull request.
func TestActionReviewsPullRequest(t *testing.T) {
	actionTools(t)
	dir := release(t)
	srv := fp.New(t, fp.Turn{fp.Text("Looks good: no bugs found.")})
	g := newFakeGitHub(t)
	code, log := runAction(t, map[string]string{
		"prompt": "review this", "version": testVersion, "download-url": serve(t, dir),
		"approval-mode": "plan", "comment": "true",
	}, map[string]string{
		"OPENAI_API_KEY": "test-key", "OPENAI_MODEL": "test-model", "OPENAI_BASE_URL": srv.URL + "/v1",
	}, g.env)
	if code != 0 {
		t.Fatalf("the action failed with %d:\n%s", code, log)
	}
	if s := g.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(s, "Exit code **0**: success") || !strings.Contains(s, "Looks good: no bugs found.") {
		t.Errorf("job summary:\n%s", s)
	}
	if o := g.file(t, "GITHUB_OUTPUT"); !strings.Contains(o, "exit-code=0\n") {
		t.Errorf("outputs:\n%s", o)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.comments) != 1 || !strings.HasPrefix(g.comments[0], "/repos/octo/repo/issues/7/comments Bearer test-token ") ||
		!strings.Contains(g.comments[0], "Looks good: no bugs found.") {
		t.Errorf("comments: %q\nlog:\n%s", g.comments, log)
	}
}

// TestActionFailsWithPlyExitCode: a bad approval mode makes ply exit 42;
// the summary says so, no comment is posted without comment: true, and
// the action fails with 42.
func TestActionFailsWithPlyExitCode(t *testing.T) {
	actionTools(t)
	dir := release(t)
	g := newFakeGitHub(t)
	code, log := runAction(t, map[string]string{
		"prompt": "anything", "version": testVersion, "download-url": serve(t, dir), "approval-mode": "everything",
	}, map[string]string{"OPENAI_API_KEY": "test-key", "OPENAI_MODEL": "test-model", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}, g.env)
	if code != 42 {
		t.Fatalf("the action's exit code is %d, want 42 (bad input):\n%s", code, log)
	}
	if s := g.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(s, "Exit code **42**: bad input or flags") {
		t.Errorf("job summary:\n%s", s)
	}
	if len(g.comments) != 0 {
		t.Errorf("commented without comment: true: %q", g.comments)
	}
}

// TestExampleWorkflows checks the example workflows' structure as the
// workflow schema has it, and that every use of this action passes
// declared inputs and the required ones.
func TestExampleWorkflows(t *testing.T) {
	a := readAction(t)
	files, err := filepath.Glob(filepath.Join(moduleRoot(), "action", "examples", "*.yml"))
	if err != nil || len(files) < 2 {
		t.Fatalf("example workflows: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Name string
			On   yaml.Node `yaml:"on"`
			Jobs map[string]struct {
				RunsOn string `yaml:"runs-on"`
				Steps  []map[string]any
			}
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if wf.Name == "" || wf.On.Kind == 0 || len(wf.Jobs) == 0 {
			t.Errorf("%s: a workflow needs name, on and jobs", f)
		}
		uses := 0
		for id, job := range wf.Jobs {
			if job.RunsOn == "" || len(job.Steps) == 0 {
				t.Errorf("%s: job %s needs runs-on and steps", f, id)
			}
			for i, st := range job.Steps {
				_, hasUses := st["uses"]
				_, hasRun := st["run"]
				if hasUses == hasRun {
					t.Errorf("%s: job %s step %d needs exactly one of uses and run", f, id, i)
				}
				if u, _ := st["uses"].(string); strings.HasPrefix(u, "plyhq/ply@") {
					uses++
					with, _ := st["with"].(map[string]any)
					for k := range with {
						if _, ok := a.Inputs[k]; !ok {
							t.Errorf("%s: input %q is not declared in action.yml", f, k)
						}
					}
					for name, in := range a.Inputs {
						if _, ok := with[name]; in.Required && !ok {
							t.Errorf("%s: required input %q missing", f, name)
						}
					}
				}
			}
		}
		if uses == 0 {
			t.Errorf("%s does not use the action", f)
		}
	}
}
