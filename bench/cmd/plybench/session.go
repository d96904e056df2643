package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/demoproject"
	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/fleet"
	"github.com/plyhq/ply/internal/tools"
)

// call is one scripted tool call.
type call struct {
	name string
	args map[string]any
}

// round is one scripted model reply: tool calls, or the final text when
// calls is empty.
type round struct {
	calls []call
	text  string
}

// toolSession is the 10-round scenario (demoproject): nine rounds of tool
// calls that touch every kind of tool, then the answer.
func toolSession() []round {
	var out []round
	for _, calls := range demoproject.ToolRounds() {
		var r round
		for _, c := range calls {
			r.calls = append(r.calls, call{c.Name, c.Args})
		}
		out = append(out, r)
	}
	return append(out, round{text: demoproject.FinalText})
}

// turns renders the rounds as the fake provider's script.
func turns(rounds []round) []fp.Turn {
	var out []fp.Turn
	for i, r := range rounds {
		var t fp.Turn
		if r.text != "" {
			t = append(t, fp.Text(r.text))
		}
		for j, c := range r.calls {
			b, err := json.Marshal(c.args)
			if err != nil {
				panic(err)
			}
			t = append(t, fp.ToolCall(fmt.Sprintf("call_%d_%d", i, j), c.name, string(b)))
		}
		out = append(out, append(t, fp.Usage(1000+100*i, 20)))
	}
	return out
}

// makeWorkspace writes the small project the tool session works on
// (demoproject).
func makeWorkspace(dir string) error { return demoproject.Write(dir) }

// runResult is what one ply process did.
type runResult struct {
	wall      time.Duration   // process start to exit
	startup   time.Duration   // process start to the first byte of the first request
	server    []time.Duration // per request: first byte to response sent
	at        []time.Duration // per request: process start to its first byte
	maxRSS    float64         // bytes
	firstBody float64         // bytes of the first request's body
	exchanges int
	stderr    string
}

func (r runResult) serverTotal() time.Duration {
	var s time.Duration
	for _, d := range r.server {
		s += d
	}
	return s
}

// plyRun is one invocation of the binary.
type plyRun struct {
	bin  string
	dir  string   // working directory, the workspace
	args []string // after the binary
	env  []string // added to the minimal environment
	// home, when set, is HOME (PLY_HOME its ply/), kept after the run;
	// otherwise each run gets a fresh one.
	home string
	// settings, when set, is written as PLY_HOME/settings.json.
	settings string
	rounds   []round // nil: no server (--version)
	// optional turns are scripted ahead of the rounds, each with a When
	// step, for side requests an agent may or may not send before it
	// exits (a peer's session title); they are not counted as rounds.
	optional []fp.Turn
	// setup, when set, prepares an agent other than ply for the run (its
	// configuration under home, pointed at the fake server's base URL)
	// and returns environment variables to add.
	setup func(home, baseURL string) ([]string, error)
	// check validates the run beyond the exit code and the script.
	check func(stdout string, reqs []fp.Request) error
}

// run starts ply as a child process against a fresh fake server and
// waits for it. An error means the scenario failed, not that it was slow.
func (p plyRun) run(ctx context.Context) (runResult, error) {
	home := p.home
	if home == "" {
		h, err := os.MkdirTemp("", "plybench-home-")
		if err != nil {
			return runResult{}, err
		}
		defer os.RemoveAll(h)
		home = h
	}
	if p.settings != "" {
		if err := os.MkdirAll(filepath.Join(home, "ply"), 0o700); err != nil {
			return runResult{}, err
		}
		if err := os.WriteFile(filepath.Join(home, "ply", "settings.json"), []byte(p.settings), 0o600); err != nil {
			return runResult{}, err
		}
	}

	rec := newRecorder()
	var srv *fp.Server
	if p.rounds != nil {
		srv = rec.server(append(slices.Clone(p.optional), turns(p.rounds)...))
		defer srv.Close()
	}
	var setupEnv []string
	if p.setup != nil {
		env, err := p.setup(home, srv.URL+"/v1")
		if err != nil {
			return runResult{}, fmt.Errorf("setting up %s: %w", filepath.Base(p.bin), err)
		}
		setupEnv = env
	}
	cmd := exec.CommandContext(ctx, p.bin, p.args...)
	cmd.Dir = p.dir
	// A minimal environment: nothing of the caller's (proxies, keys, a
	// real PLY_HOME) leaks into the measurement.
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"PLY_HOME=" + filepath.Join(home, "ply"),
		"OPENAI_API_KEY=bench-key",
		"OPENAI_MODEL=bench-model",
		"LANG=C.UTF-8",
	}
	if srv != nil {
		cmd.Env = append(cmd.Env, "OPENAI_BASE_URL="+srv.URL+"/v1")
	}
	cmd.Env = append(cmd.Env, setupEnv...)
	cmd.Env = append(cmd.Env, p.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)

	res := runResult{wall: wall, stderr: stderr.String()}
	if ps := cmd.ProcessState; ps != nil {
		res.maxRSS = float64(fleet.MaxRSS(ps))
	}
	if err != nil {
		return res, fmt.Errorf("%s %s: %v\nstderr:\n%s", filepath.Base(p.bin), strings.Join(p.args, " "), err, tail(stderr.String()))
	}
	var reqs []fp.Request
	if srv != nil {
		if f := srv.Failures(); len(f) > 0 {
			return res, fmt.Errorf("fake server: %s", strings.Join(f, "; "))
		}
		all := srv.Requests()
		for _, r := range all {
			if r.Turn >= len(p.optional) {
				reqs = append(reqs, r)
			}
		}
		if n := len(p.rounds) - len(reqs); n != 0 {
			return res, fmt.Errorf("%d scripted rounds were never requested; stdout:\n%s\nstderr:\n%s", n, tail(stdout.String()), tail(stderr.String()))
		}
		exs := rec.wait(len(all), 5*time.Second)
		if len(exs) != len(all) {
			return res, fmt.Errorf("%d requests, %d of them timed", len(all), len(exs))
		}
		res.exchanges = len(exs)
		res.firstBody = float64(len(reqs[0].Raw))
		res.startup = exs[0].firstByte.Sub(start)
		for _, e := range exs {
			res.at = append(res.at, e.firstByte.Sub(start))
			res.server = append(res.server, e.done.Sub(e.firstByte))
		}
		if err := toolErrors(reqs[len(reqs)-1]); err != nil {
			return res, err
		}
	}
	if p.check != nil {
		if err := p.check(stdout.String(), reqs); err != nil {
			return res, err
		}
	}
	return res, nil
}

// toolErrors fails the run when any tool result in the final history is
// an error: a benchmark of failing tools measures the wrong thing.
func toolErrors(last fp.Request) error {
	var errs []error
	for _, m := range last.Messages {
		if m.Role == "tool" && strings.HasPrefix(m.Text(), "Error:") {
			errs = append(errs, fmt.Errorf("tool result %s: %.300s", m.ToolCallID, m.Text()))
		}
	}
	return errors.Join(errs...)
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

// roundToolTimes runs the session's tool calls in this process, on a fresh copy
// of the workspace, the way the scheduler runs them (a batch of several
// read-only calls in parallel), and returns the time spent inside the
// tools, round by round. The 10-round figure subtracts their sum, so that what remains is ply's
// own overhead.
func roundToolTimes(ctx context.Context, rounds []round) ([]time.Duration, error) {
	dir, err := os.MkdirTemp("", "plybench-tools-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := makeWorkspace(dir); err != nil {
		return nil, err
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		return nil, err
	}
	sh := tools.NewShell(ws)
	defer sh.Close()
	reg := tools.NewRegistry(tools.NewListDirectory(ws), tools.NewReadFile(ws), tools.NewGrep(ws),
		tools.NewGlob(ws), tools.NewEdit(ws), tools.NewWriteFile(ws), sh)

	per := make([]time.Duration, 0, len(rounds))
	for _, r := range rounds {
		start := time.Now()
		errs := make([]error, len(r.calls))
		var wg sync.WaitGroup
		for i, c := range r.calls {
			wg.Go(func() {
				t, ok := reg.Lookup(c.name)
				if !ok {
					errs[i] = fmt.Errorf("no tool %s", c.name)
					return
				}
				b, _ := json.Marshal(c.args)
				res, err := t.Execute(ctx, b, nil)
				if err == nil && res.IsError {
					err = fmt.Errorf("%s: %s", c.name, res.Output)
				}
				errs[i] = err
			})
		}
		wg.Wait()
		per = append(per, time.Since(start))
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
	}
	return per, nil
}
