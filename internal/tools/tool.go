// Package tools implements the tools ply offers the model (read_file,
// write_file, edit, run_shell_command, glob, grep_search, list_directory,
// task_output, task_stop) and the registry that names them, and keeps the
// session's background shell jobs.
//
// A tool validates nothing about permissions and never asks the user: the
// scheduler owns states, approval and batching. Tools must not import the
// scheduler, the chat layers or any UI.
package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"

	"github.com/plyhq/ply/internal/llm"
)

// Kind groups tools by what they may do; approval and concurrency decide by
// kind.
type Kind string

const (
	KindRead    Kind = "read"
	KindEdit    Kind = "edit"
	KindDelete  Kind = "delete"
	KindMove    Kind = "move"
	KindSearch  Kind = "search"
	KindExecute Kind = "execute"
	KindThink   Kind = "think"
	KindFetch   Kind = "fetch"
	// KindAgent delegates to a subagent: it changes nothing itself, and
	// every call the subagent makes is checked on its own.
	KindAgent Kind = "agent"
	KindOther Kind = "other"
)

// ReadOnly reports whether tools of kind k never change anything, so that
// they may run in parallel.
func (k Kind) ReadOnly() bool {
	return k == KindRead || k == KindSearch || k == KindFetch || k == KindThink
}

type callIDKey struct{}

// WithCallID returns ctx carrying the id of the call being executed; the
// scheduler sets it so that a tool that reports nested events (a subagent)
// can name its parent call.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallID returns the id WithCallID stored in ctx, or "".
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

// Tool is one callable tool.
type Tool interface {
	Name() string
	Description() string
	Kind() Kind
	// Schema is the JSON Schema of the arguments object.
	Schema() json.RawMessage
	// Execute runs the tool with arguments that already passed the schema.
	// A failure the model should see is a Result with IsError, not a Go
	// error; a Go error is reserved for cancellation and bugs.
	Execute(ctx context.Context, args json.RawMessage, out Output) (Result, error)
}

// ConcurrencySafe is implemented by tools whose safety depends on their
// arguments (run_shell_command: only read-only commands are safe).
type ConcurrencySafe interface {
	ConcurrencySafe(args json.RawMessage) bool
}

// Warmer is implemented by tools with set-up of their own that a call
// would otherwise wait for (run_shell_command: the guardian that ends
// commands with ply). Warm starts it in the background and returns at
// once; it acts on no call and runs nothing the model asked for. The
// scheduler's Warm calls it before a batch's checkpoint, so that the
// two overlap.
type Warmer interface {
	Warm()
}

// Output receives live output while a tool runs (a shell command's stdout).
// It may be nil.
type Output interface {
	Write(p []byte) (int, error)
}

// Result is what a tool produced.
type Result struct {
	// Output is the text the model receives.
	Output string
	// Media is inline data returned with the text (images).
	Media []llm.Media
	// IsError marks a failed call; ErrorType is a stable code such as
	// "FILE_NOT_FOUND".
	IsError   bool
	ErrorType string
	// Display is a short human summary (a diff for edits); may be empty.
	Display string
}

// Errorf builds an error Result.
func Errorf(errType, format string, args ...any) Result {
	return Result{IsError: true, ErrorType: errType, Output: sprintf(format, args...)}
}

// Registry maps tool names to tools, in registration order. It is safe
// for concurrent use: tool_search loads deferred tools while other calls
// of the same batch run.
//
// A deferred tool (Defer) is registered but not declared to the model
// until it is loaded (Load); loading puts it after every tool declared so
// far, so that the declarations only ever grow at their end and the
// provider's prompt cache of the earlier ones stays valid.
type Registry struct {
	mu       sync.RWMutex
	order    []Tool
	byName   map[string]Tool
	deferred map[string]bool // deferred and not loaded yet
}

// NewRegistry returns a registry holding ts.
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{byName: make(map[string]Tool)}
	for _, t := range ts {
		r.Register(t)
	}
	return r
}

// Register adds t, replacing a tool of the same name.
func (r *Registry) Register(t Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.register(t)
	delete(r.deferred, t.Name())
}

func (r *Registry) register(t Tool) {
	if _, ok := r.byName[t.Name()]; !ok {
		r.order = append(r.order, t)
	} else {
		for i, o := range r.order {
			if o.Name() == t.Name() {
				r.order[i] = t
			}
		}
	}
	r.byName[t.Name()] = t
}

// Defer adds t without declaring it to the model until Load.
func (r *Registry) Defer(t Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.register(t)
	if r.deferred == nil {
		r.deferred = map[string]bool{}
	}
	r.deferred[t.Name()] = true
}

// Load declares the deferred tools named, in that order, after every tool
// declared so far. It returns the names it loaded; names that are unknown,
// not deferred or loaded already are skipped.
func (r *Registry) Load(names ...string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, n := range names {
		if !r.deferred[n] {
			continue
		}
		delete(r.deferred, n)
		t := r.byName[n]
		r.order = slices.DeleteFunc(r.order, func(o Tool) bool { return o.Name() == n })
		r.order = append(r.order, t)
		out = append(out, n)
	}
	return out
}

// IsDeferred reports whether name is a deferred tool not loaded yet.
func (r *Registry) IsDeferred(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.deferred[name]
}

// Deferred returns the deferred tools not loaded yet, in registration
// order.
func (r *Registry) Deferred() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Tool
	for _, t := range r.order {
		if r.deferred[t.Name()] {
			out = append(out, t)
		}
	}
	return out
}

// Remove drops the tool named name, if present.
func (r *Registry) Remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byName[name]; !ok {
		return
	}
	delete(r.byName, name)
	delete(r.deferred, name)
	for i, o := range r.order {
		if o.Name() == name {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
}

// Lookup returns the tool named name, deferred or not.
func (r *Registry) Lookup(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.byName[name]
	return t, ok
}

// All returns the tools in registration order, deferred ones included.
func (r *Registry) All() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

// Names returns the tool names in registration order, deferred ones
// included.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, len(r.order))
	for i, t := range r.order {
		out[i] = t.Name()
	}
	return out
}

// OfferedNames returns the names of the tools declared to the model: all
// but the deferred ones not loaded yet.
func (r *Registry) OfferedNames() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for _, t := range r.order {
		if !r.deferred[t.Name()] {
			out = append(out, t.Name())
		}
	}
	return out
}

// Decls returns the declarations offered to the model: every tool but the
// deferred ones not loaded yet.
//
// The tools' methods are called without the registry's lock held, so that
// a tool may ask the registry about itself.
func (r *Registry) Decls() []llm.ToolDecl {
	r.mu.RLock()
	offered := make([]Tool, 0, len(r.order))
	for _, t := range r.order {
		if !r.deferred[t.Name()] {
			offered = append(offered, t)
		}
	}
	r.mu.RUnlock()
	out := make([]llm.ToolDecl, len(offered))
	for i, t := range offered {
		out[i] = llm.ToolDecl{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()}
	}
	return out
}

// PathWriter is implemented by tools that change only the files their
// arguments name (write_file, edit): WritePaths returns those files as
// the tool would resolve them, the path as named and, when a symbolic
// link lies on the way, the file it leads to; ok is false when the
// arguments do not say. A call whose path the tool would refuse returns
// no path: it changes nothing.
type PathWriter interface {
	WritePaths(args json.RawMessage) (paths []string, ok bool)
}

// writePaths is WritePaths for a tool whose one written file is the
// file_path argument.
func writePaths(ws *Workspace, args json.RawMessage) ([]string, bool) {
	var p struct {
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(args, &p) != nil || p.FilePath == "" {
		return nil, false
	}
	path, err := ws.Resolve(p.FilePath)
	if err != nil {
		return nil, true // refused: nothing is written
	}
	paths := []string{path}
	add := func(p string, err error) {
		if err == nil && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	// The name itself where it really is (a link is replaced), and the
	// file a link there leads to (it is written through).
	if dir, err := realPath(filepath.Dir(path)); err == nil {
		add(filepath.Join(dir, filepath.Base(path)), nil)
	}
	add(realPath(path))
	return paths, true
}
