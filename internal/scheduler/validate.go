package scheduler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/plyhq/ply/internal/spell"
	"github.com/plyhq/ply/internal/tools"
)

// prepare takes every call either to validating (known tool, valid
// arguments) or straight to error, in this order: disabled, not
// registered, truncated edit, invalid arguments.
//
// With hooks, the PreToolUse hooks then run for every valid call (see
// preToolUse): after validation, before the policy.
func (s *Scheduler) prepare(ctx context.Context, calls []*Call) {
	var valid []*Call
	for _, c := range calls {
		if ctx.Err() != nil {
			c.cancel("")
			continue
		}
		if ok, reason := s.policy.Enabled(c.Name); !ok {
			c.fail(ErrorTypeExecutionDenied, withReason(fmt.Sprintf(
				"Tool %q is disabled by the permission settings and cannot be called.", c.Name), reason))
			continue
		}
		t, ok := s.registry.Lookup(c.Name)
		if !ok {
			c.fail(ErrorTypeToolNotRegistered, notRegistered(c.Name, s.registry.Names()))
			continue
		}
		c.Tool = t
		if c.WasOutputTruncated && t.Kind() == tools.KindEdit {
			// Writing half a file is worse than not writing it.
			c.fail(ErrorTypeOutputTruncated, s.retries.note(c.Name, fmt.Sprintf(
				"Tool %q was not run: your previous response was cut off at the output token limit, "+
					"so its arguments may be incomplete. Retry with smaller edits, or write the file in smaller pieces.", c.Name)))
			continue
		}
		params, msg := s.validate(t, c.Args)
		if msg != "" {
			c.fail(ErrorTypeInvalidParams, s.retries.note(c.Name, msg))
			continue
		}
		s.retries.reset(c.Name)
		c.Params = params
		if s.hooks == nil {
			c.setState(StateValidating)
			continue
		}
		valid = append(valid, c)
	}
	if len(valid) == 0 {
		return
	}
	// The hooks see each call before it is published: they may rewrite
	// Params, which must not change once an observer can see the call.
	for _, c := range s.preToolUse(ctx, valid) {
		c.setState(StateValidating)
	}
}

// validate parses args and checks them against t's schema. It returns the
// parameters for the tool, or a message for the model saying what is wrong.
func (s *Scheduler) validate(t tools.Tool, args string) (json.RawMessage, string) {
	raw := []byte(strings.TrimSpace(args))
	if len(raw) == 0 {
		raw = []byte("{}") // models send "" for tools without parameters
	}
	v, err := decodeArgs(raw)
	if err != nil {
		return nil, fmt.Sprintf("Invalid arguments for tool %q: %v.", t.Name(), err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Sprintf("Invalid arguments for tool %q: the arguments must be a JSON object, got %s.", t.Name(), jsonType(v))
	}
	sch, err := s.schemas.get(t)
	if err != nil {
		return nil, fmt.Sprintf("Tool %q cannot be called: its parameter schema is invalid (%v). This is a bug in ply, not in your call.", t.Name(), err)
	}
	if msgs := sch.validate(v); len(msgs) > 0 {
		return nil, fmt.Sprintf("Invalid arguments for tool %q: %s.", t.Name(), joinProblems(msgs))
	}
	return raw, ""
}

// decodeArgs decodes one JSON value and nothing after it, saying where the
// text stops being JSON.
func decodeArgs(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber() // keeps integers exact for "type": "integer"
	var v any
	if err := d.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("not valid JSON: %s at byte offset %d%s", se.Error(), se.Offset, near(b, se.Offset))
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			return nil, fmt.Errorf("not valid JSON: the text ends at byte offset %d before the JSON value is complete", len(b))
		}
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	off := d.InputOffset()
	if rest := bytes.TrimLeft(b[off:], " \t\r\n"); len(rest) > 0 {
		at := int64(len(b) - len(rest))
		return nil, fmt.Errorf("not valid JSON: unexpected text after the JSON object at byte offset %d%s", at, near(b, at))
	}
	return v, nil
}

// near quotes the text around offset so the model can find its mistake.
func near(b []byte, off int64) string {
	const span = 20
	lo, hi := max(off-span, 0), min(off+span, int64(len(b)))
	if lo >= hi {
		return ""
	}
	return fmt.Sprintf(" (near %q)", b[lo:hi])
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}

// notRegistered tells the model the tool does not exist, with the closest
// registered names when some are close enough to be a misspelling.
func notRegistered(name string, names []string) string {
	msg := fmt.Sprintf("Tool %q not found in the registry.", name)
	if alias, ok := foreignNames[strings.ToLower(name)]; ok && slices.Contains(names, alias) {
		return msg + " Did you mean " + strconv.Quote(alias) + "?"
	}
	if s := suggest(name, names); len(s) > 0 {
		quoted := make([]string, len(s))
		for i, n := range s {
			quoted[i] = fmt.Sprintf("%q", n)
		}
		if len(s) == 1 {
			return msg + " Did you mean " + quoted[0] + "?"
		}
		return msg + " Did you mean one of: " + strings.Join(quoted, ", ") + "?"
	}
	if len(names) > 0 {
		return msg + " Available tools: " + strings.Join(names, ", ") + "."
	}
	return msg
}

// foreignNames maps the tool names of other coding agents (and the
// commands models reach for), lower-cased, to ply's tool that does the
// same: a model trained on them is pointed at the right one at once.
var foreignNames = map[string]string{
	"bash": "run_shell_command", "shell": "run_shell_command", "exec_command": "run_shell_command",
	"run_command": "run_shell_command", "execute_command": "run_shell_command", "terminal": "run_shell_command",
	"read": "read_file", "view": "read_file", "cat": "read_file", "open_file": "read_file", "view_file": "read_file",
	"str_replace": "edit", "str_replace_editor": "edit", "str_replace_based_edit_tool": "edit", "apply_patch": "edit",
	"multiedit": "edit", "multi_edit": "edit", "replace": "edit", "edit_file": "edit", "replace_in_file": "edit",
	"write": "write_file", "create_file": "write_file", "create": "write_file",
	"grep": "grep_search", "search_file_content": "grep_search", "rg": "grep_search", "search": "grep_search", "ripgrep": "grep_search",
	"ls": "list_directory", "list_dir": "list_directory", "list_files": "list_directory",
	"find_files": "glob", "find": "glob", "file_search": "glob",
	"webfetch": "web_fetch", "fetch": "web_fetch", "fetch_url": "web_fetch",
	"task": "agent", "todowrite": "todo_write", "exitplanmode": "exit_plan_mode",
	"askuserquestion": "ask_user_question", "ask_user": "ask_user_question",
}

// suggest returns up to three names within a typo's distance of name,
// closest first. Case and the -/_ spelling are ignored, and a name that
// contains the other ("read" for "read_file") counts as close.
func suggest(name string, names []string) []string {
	n := spell.Lower(name)
	return spell.Closest(name, names, 3, spell.Lower, func(o string, d int) bool {
		return d <= max(2, len(n)/3) || (len(n) >= 3 && (strings.Contains(o, n) || strings.Contains(n, o)))
	})
}

// retryCounter counts identical validation errors per tool so that the
// third one can tell the model to stop: breaking the loop with words, not
// with a hard stop.
type retryCounter struct {
	mu     sync.Mutex
	counts map[retryKey]int
}

type retryKey struct{ tool, msg string }

// maxRetryKeys bounds the memory a long session can spend on distinct
// error messages.
const maxRetryKeys = 1024

// note records one occurrence of msg for tool and returns msg, with the
// instruction to change approach from the threshold on.
func (r *retryCounter) note(tool, msg string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counts == nil || len(r.counts) >= maxRetryKeys {
		r.counts = make(map[retryKey]int)
	}
	k := retryKey{tool, msg}
	r.counts[k]++
	n := r.counts[k]
	if n < ValidationRetryLoopThreshold {
		return msg
	}
	return msg + fmt.Sprintf("\n\nThis exact error has now occurred %d times for tool %q. Stop retrying the same call: "+
		"change your approach (re-read the tool's parameters, split the work differently, or use another tool).", n, tool)
}

// reset forgets the errors of tool once a call to it validates: the model
// got it right, so earlier mistakes no longer form a loop.
func (r *retryCounter) reset(tool string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.counts {
		if k.tool == tool {
			delete(r.counts, k)
		}
	}
}
