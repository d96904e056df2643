package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// The S4 scenario: the same 20-round session in ply and in a peer agent,
// Charm's crush, on the same machine against the same fake provider. Each
// round is one tool call (read, list, grep, edit or a shell command) and
// the last is the answer; the work is the same, spelled in each agent's
// own tool names and arguments.

// s4Answer is the scripted final answer both agents must print.
const s4Answer = "S4 done."

// op is one agent-neutral step of the S4 session.
type op struct {
	kind    string // read, list, grep, edit, shell
	path    string // read, list, edit
	pattern string // grep
	include string // grep: a file-name glob, "" for all
	old     string // edit
	new     string // edit
	command string // shell
	// want is a string the tool's result must contain ("" for edits,
	// whose effect is checked on disk afterwards).
	want string
}

// s4Ops is the session: 19 tool calls, then the answer.
func s4Ops() []op {
	return []op{
		{kind: "read", path: "main.go", want: "func main"},
		{kind: "list", path: ".", want: "main.go"},
		{kind: "grep", pattern: `func F\d+`, want: "util.go"},
		{kind: "read", path: "pkg/util/util.go", want: "func F7"},
		{kind: "edit", path: "main.go", old: `fmt.Println("hello")`, new: `fmt.Println("hello, world")`},
		{kind: "shell", command: "git status --short", want: "main.go"},
		{kind: "list", path: "pkg", want: "p07"},
		{kind: "grep", pattern: "TODO", include: "*.go", want: "p.go"},
		{kind: "read", path: "pkg/p12/p.go", want: "func Do12"},
		{kind: "edit", path: "pkg/util/util.go", old: "// TODO: handle the error", new: "// The error is handled by the caller."},
		{kind: "shell", command: "echo s4-ok", want: "s4-ok"},
		{kind: "grep", pattern: "hello, world", want: "main.go"},
		{kind: "read", path: "go.mod", want: "example.com/demo"},
		{kind: "list", path: "pkg/util", want: "util.go"},
		{kind: "edit", path: "pkg/p12/p.go", old: "// TODO: document", new: "// Do12 returns twelve."},
		{kind: "shell", command: "git diff --stat", want: "3 files changed"},
		{kind: "grep", pattern: "returns twelve", want: "p12"},
		{kind: "read", path: "pkg/p12/p.go", want: "returns twelve"},
		{kind: "shell", command: "ls pkg | wc -l", want: "41"},
	}
}

// s4Edits are the files the session edits and what each holds after it.
var s4Edits = map[string]string{
	"main.go":          `fmt.Println("hello, world")`,
	"pkg/util/util.go": "// The error is handled by the caller.",
	"pkg/p12/p.go":     "// Do12 returns twelve.",
}

// agentTools spells the session's operations as one agent's tool calls.
type agentTools func(o op) call

func plyTools(o op) call {
	switch o.kind {
	case "read":
		return call{"read_file", map[string]any{"file_path": o.path}}
	case "list":
		return call{"list_directory", map[string]any{"path": o.path}}
	case "grep":
		a := map[string]any{"pattern": o.pattern}
		if o.include != "" {
			a["glob"] = o.include
		}
		return call{"grep_search", a}
	case "edit":
		return call{"edit", map[string]any{"file_path": o.path, "old_string": o.old, "new_string": o.new}}
	default:
		return call{"run_shell_command", map[string]any{"command": o.command}}
	}
}

func crushTools(o op) call {
	switch o.kind {
	case "read":
		return call{"view", map[string]any{"file_path": o.path}}
	case "list":
		return call{"ls", map[string]any{"path": o.path}}
	case "grep":
		a := map[string]any{"pattern": o.pattern}
		if o.include != "" {
			a["include"] = o.include
		}
		return call{"grep", a}
	case "edit":
		return call{"edit", map[string]any{"file_path": o.path, "old_string": o.old, "new_string": o.new}}
	default:
		return call{"bash", map[string]any{"command": o.command, "description": "run " + strings.Fields(o.command)[0]}}
	}
}

// s4Rounds is the script for one agent.
func s4Rounds(tools agentTools) []round {
	var rs []round
	for _, o := range s4Ops() {
		rs = append(rs, round{calls: []call{tools(o)}})
	}
	return append(rs, round{text: s4Answer})
}

// checkS4 checks that the session really ran: the answer printed, every
// tool result holding what its call should have found and none an error,
// and the edits on disk.
func checkS4(ws, stdout string, reqs []fp.Request) error {
	if !strings.Contains(stdout, s4Answer) {
		return fmt.Errorf("stdout = %q, want the scripted answer", tail(stdout))
	}
	results := map[string]string{}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Text()
		}
	}
	var errs []error
	for i, o := range s4Ops() {
		id := fmt.Sprintf("call_%d_0", i)
		got, ok := results[id]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("round %d (%s): no tool result in the last request", i+1, o.kind))
		case strings.HasPrefix(strings.ToLower(strings.TrimSpace(got)), "error"):
			errs = append(errs, fmt.Errorf("round %d (%s): tool error: %.300s", i+1, o.kind, got))
		case !strings.Contains(got, o.want):
			errs = append(errs, fmt.Errorf("round %d (%s): result lacks %q: %.300s", i+1, o.kind, o.want, got))
		}
	}
	for name, want := range s4Edits {
		b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(name)))
		if err != nil || !strings.Contains(string(b), want) {
			errs = append(errs, fmt.Errorf("%s was not edited (%v)", name, err))
		}
	}
	return errors.Join(errs...)
}

// crushBinary is the crush to compare with: PLY_BENCH_CRUSH, else crush on
// PATH; "" when there is none.
func crushBinary() string {
	if p := os.Getenv("PLY_BENCH_CRUSH"); p != "" {
		if abs, err := exec.LookPath(p); err == nil {
			return abs
		}
		return ""
	}
	p, _ := exec.LookPath("crush")
	return p
}

// crushSetup writes crush's configuration under home: one OpenAI-compatible
// provider at the fake server, its model as both the large and the small
// model, and nothing that would reach the network or start other
// processes (provider catalogue updates, metrics, language servers).
func crushSetup(home, baseURL string) ([]string, error) {
	cfgDir := filepath.Join(home, "crush-config")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		return nil, err
	}
	model := map[string]any{"model": "bench-model", "provider": "bench"}
	cfg := map[string]any{
		"providers": map[string]any{"bench": map[string]any{
			"type": "openai-compat", "base_url": baseURL, "api_key": "bench-key",
			"models": []any{map[string]any{"id": "bench-model", "name": "bench-model",
				"context_window": 200000, "default_max_tokens": 4096}},
		}},
		"models": map[string]any{"large": model, "small": model},
		"options": map[string]any{
			"disable_provider_auto_update": true,
			"disable_default_providers":    true,
			"disable_metrics":              true,
			"auto_lsp":                     false,
			"data_directory":               filepath.Join(home, "crush-data"),
		},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "crush.json"), b, 0o600); err != nil {
		return nil, err
	}
	return []string{
		"CRUSH_GLOBAL_CONFIG=" + cfgDir,
		"CRUSH_GLOBAL_DATA=" + filepath.Join(home, "crush-global-data"),
		"CRUSH_CACHE_DIR=" + filepath.Join(home, "crush-cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"CRUSH_DISABLE_METRICS=1",
		"DO_NOT_TRACK=1",
		"CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1",
	}, nil
}

// crushTitle answers the side request crush makes for the session's
// title, whenever it comes.
var crushTitle = fp.Turn{fp.When("Generate a concise title"), fp.Text("S4 bench"), fp.Usage(50, 3)}

// s4Scenario runs the S4 session in ply and crush, alternating, each run
// in a fresh copy of a small git repository, and reports both agents'
// wall time and peak RSS and ply's share of crush's wall time.
func (b *bench) s4Scenario() error {
	const g = "S4: 20-round session, ply vs crush"
	crush := crushBinary()
	if crush == "" {
		b.t.notef("S4 (ply vs crush) skipped: crush is not installed. Build it from its source (`go build -o /usr/local/bin/crush .` in a checkout of charmbracelet/crush) or set PLY_BENCH_CRUSH to its path.")
		return nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		b.t.notef("S4 (ply vs crush) skipped: git is not installed.")
		return nil
	}
	var dirs []string
	defer func() {
		for _, d := range dirs {
			os.RemoveAll(d)
		}
	}()
	newRepo := func() (string, error) {
		d, err := os.MkdirTemp("", "plybench-s4-")
		if err != nil {
			return "", err
		}
		dirs = append(dirs, d)
		return d, smallRepo(d)
	}
	agents := []struct {
		name string
		run  func(ws string) plyRun
	}{
		{"ply", func(ws string) plyRun {
			return plyRun{bin: b.bin, dir: ws, args: []string{"-y", "-p", "tidy the demo project"},
				rounds: s4Rounds(plyTools)}
		}},
		{"crush", func(ws string) plyRun {
			return plyRun{bin: crush, dir: ws, args: []string{"run", "--quiet", "tidy the demo project"},
				rounds: s4Rounds(crushTools), optional: []fp.Turn{crushTitle}, setup: crushSetup}
		}},
	}
	results := make([][]runResult, len(agents))
	for i := range b.n + 1 { // the first round of runs warms up and is not counted
		for j, a := range agents {
			ws, err := newRepo()
			if err != nil {
				return err
			}
			p := a.run(ws)
			p.check = func(out string, reqs []fp.Request) error { return checkS4(ws, out, reqs) }
			r, err := p.run(b.ctx)
			if err != nil {
				return fmt.Errorf("S4, %s: %w", a.name, err)
			}
			if i > 0 {
				results[j] = append(results[j], r)
			}
		}
	}
	for j, a := range agents {
		b.t.add(&row{group: g, name: a.name + " end to end (process start → exit)", unit: unitDuration,
			values: pick(results[j], func(r runResult) float64 { return float64(r.wall) })})
		b.t.add(&row{group: g, name: a.name + " process start → first request byte", unit: unitDuration,
			values: pick(results[j], func(r runResult) float64 { return float64(r.startup) })})
		b.t.add(&row{group: g, name: a.name + " peak RSS", unit: unitBytes,
			values: pick(results[j], func(r runResult) float64 { return r.maxRSS })})
	}
	// Each ply run over the crush run that followed it, so that the pair
	// saw about the same machine load.
	ratios := make([]float64, len(results[0]))
	for i := range ratios {
		ratios[i] = float64(results[0][i].wall) / float64(results[1][i].wall)
	}
	b.t.add(&row{group: g, name: "ply's wall time / crush's", unit: unitRatio, target: 0.45, inclusive: true, values: ratios})
	return nil
}
