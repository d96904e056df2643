package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// sdkPeer plays the SDK's side of the stream-json protocol.
type sdkPeer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
}

func startSDK(t *testing.T, dir string, srv *fp.Server, args ...string) (*sdkPeer, <-chan int) {
	t.Helper()
	return startSDKHome(t, dir, t.TempDir(), srv, args...)
}

// startSDKHome is startSDK with ply's home given, for runs that share it.
func startSDKHome(t *testing.T, dir, home string, srv *fp.Server, args ...string) (*sdkPeer, <-chan int) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "OPENAI_BASE_URL": srv.URL,
		"PLY_HOME": home, "PLY_RETRY_DELAY_SCALE": "0.001"}
	var stderr strings.Builder
	code := make(chan int, 1)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		c := Main(context.Background(), append([]string{"--input-format", "stream-json", "--output-format", "stream-json", "--channel=SDK"}, args...),
			IO{Stdin: inR, Stdout: outW, Stderr: &stderr, Getenv: func(k string) string { return env[k] }, Cwd: dir})
		outW.Close()
		inR.Close() // writes after ply exited fail instead of blocking
		code <- c
	}()
	p := &sdkPeer{t: t, in: inW, lines: make(chan map[string]any, 64)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("output line is not JSON: %q", sc.Text())
				continue
			}
			p.lines <- m
		}
	}()
	// The end of input ends the session; its directories are removed
	// (TempDir's cleanup, which runs after this one) only once ply is done
	// with them.
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Error("ply did not exit 30 s after its input ended")
		}
	})
	return p, code
}

func (p *sdkPeer) send(v any) {
	p.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// next returns the next message of type typ, skipping others into seen.
func (p *sdkPeer) next(typ string, seen *[]map[string]any) map[string]any {
	p.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("output ended while waiting for %s", typ)
			}
			if seen != nil {
				*seen = append(*seen, m)
			}
			if typ == "" || m["type"] == typ {
				return m
			}
		case <-timeout:
			p.t.Fatalf("timed out waiting for %s", typ)
		}
	}
}

func userMsg(text string) map[string]any {
	return map[string]any{"type": "user", "session_id": "s", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": text}}
}

func TestSDKProtocol(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "denied.txt")
	srv := fp.New(t,
		// Query 1: two calls that need approval; the SDK denies the
		// first and allows the second.
		fp.Turn{
			fp.ToolCall("w1", "write_file", mustJSON(map[string]any{"file_path": target, "content": "no"})),
			fp.ToolCall("s1", "run_shell_command", `{"command":"echo allowed > allowed.txt"}`),
		},
		fp.Turn{fp.Text("first done")},
		// Query 2: a long command, interrupted.
		fp.Turn{fp.ToolCall("s2", "run_shell_command", `{"command":"sleep 30"}`)},
	)
	p, code := startSDK(t, dir, srv)

	p.send(map[string]any{"type": "control_request", "request_id": "init-1", "request": map[string]any{"subtype": "initialize"}})
	resp := p.next("control_response", nil)
	if r := resp["response"].(map[string]any); r["subtype"] != "success" || r["request_id"] != "init-1" {
		t.Fatalf("initialize answer %v", resp)
	}

	p.send(userMsg("do two things"))
	var seen []map[string]any
	for i := 0; i < 2; i++ {
		req := p.next("control_request", &seen)
		r := req["request"].(map[string]any)
		if r["subtype"] != "can_use_tool" {
			t.Fatalf("control request %v", req)
		}
		answer := map[string]any{"behavior": "allow", "updatedInput": r["input"]}
		if r["tool_name"] == "write_file" {
			answer = map[string]any{"behavior": "deny", "message": "not that file"}
		}
		p.send(map[string]any{"type": "control_response", "response": map[string]any{
			"subtype": "success", "request_id": req["request_id"], "response": answer}})
	}
	res := p.next("result", &seen)
	if res["subtype"] != "success" || res["result"] != "first done" {
		t.Fatalf("first result %v", res)
	}
	if seen[0]["type"] != "system" {
		t.Fatalf("the first message should be system/init, got %v", seen[0])
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatal("the denied write ran")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "allowed.txt")); strings.TrimSpace(string(b)) != "allowed" {
		t.Fatal("the allowed command did not run")
	}
	msgs := srv.Requests()[1].Messages
	var deniedOut string
	for _, m := range msgs {
		if m.ToolCallID == "w1" {
			deniedOut = m.Text()
		}
	}
	if !strings.Contains(deniedOut, "not that file") {
		t.Fatalf("the model should hear the denial reason, got %q", deniedOut)
	}

	// Query 2: interrupt the running command.
	p.send(userMsg("wait a while"))
	req := p.next("control_request", nil)
	p.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": req["request_id"], "response": map[string]any{"behavior": "allow"}}})
	time.Sleep(200 * time.Millisecond) // let the command start
	start := time.Now()
	p.send(map[string]any{"type": "control_request", "request_id": "int-1", "request": map[string]any{"subtype": "interrupt"}})
	res = p.next("result", nil)
	if res["is_error"] != true || time.Since(start) > 5*time.Second {
		t.Fatalf("interrupted result %v after %s", res, time.Since(start))
	}
	p.in.Close()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d after stdin closed", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ply did not exit when stdin closed")
	}
}

func TestPlanModeThenExitPlanMode(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.txt")
	write := fp.ToolCall("w1", "write_file", mustJSON(map[string]any{"file_path": target, "content": "x"}))
	srv := fp.New(t,
		fp.Turn{write},
		fp.Turn{fp.ToolCall("p1", "exit_plan_mode", `{"plan":"1. write out.txt"}`)},
		fp.Turn{fp.ToolCall("w2", "write_file", mustJSON(map[string]any{"file_path": target, "content": "x"}))},
		fp.Turn{fp.Text("written")},
	)
	p, code := startSDK(t, dir, srv, "--approval-mode", "plan")
	p.send(userMsg("write the file"))
	var asked []string
	for i := 0; i < 2; i++ {
		req := p.next("control_request", nil)
		r := req["request"].(map[string]any)
		asked = append(asked, r["tool_name"].(string))
		p.send(map[string]any{"type": "control_response", "response": map[string]any{
			"subtype": "success", "request_id": req["request_id"], "response": map[string]any{"behavior": "allow"}}})
	}
	res := p.next("result", nil)
	if res["subtype"] != "success" || strings.Join(asked, ",") != "exit_plan_mode,write_file" {
		t.Fatalf("result %v, asked about %v", res, asked)
	}
	msgs := srv.Requests()[1].Messages
	if out := msgs[len(msgs)-1].Text(); !strings.Contains(out, "plan mode") {
		t.Fatalf("the write in plan mode should be refused with a plan-mode message: %q", out)
	}
	if b, _ := os.ReadFile(target); string(b) != "x" {
		t.Fatal("after the plan was approved the write should run")
	}
	p.in.Close()
	<-code
}
