package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Sink is where a run's output goes, in one format: the printer hands it
// every message (in their stream-json shapes), every progress line and
// the result. Tools running in parallel reach it concurrently: each sink
// serialises its own writes, so lines cannot interleave.
type Sink interface {
	// Message takes one message of the run.
	Message(v any)
	// Progress takes one progress line, without its newline.
	Progress(line string)
	// Result takes the run's last message; nothing follows it.
	Result(res Result)
}

// newSink returns the sink of cfg's format, writing to cfg.Stdout (and
// cfg.Stderr for text's progress and errors).
func newSink(cfg Config) Sink {
	switch cfg.Format {
	case FormatStreamJSON:
		return NewStreamJSON(cfg.Stdout)
	case FormatJSON:
		return &jsonSink{w: cfg.Stdout}
	case FormatText:
		return &textSink{stdout: cfg.Stdout, stderr: cfg.Stderr}
	}
	return discard{}
}

// textSink prints progress lines on stderr and, at the end, the answer
// on stdout (or the error on stderr); it drops the messages.
type textSink struct {
	mu             sync.Mutex
	stdout, stderr io.Writer
}

func (*textSink) Message(any) {}

func (t *textSink) Progress(line string) {
	if t.stderr == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.stderr, "%s\n", line)
}

func (t *textSink) Result(res Result) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if res.StructuredOutput != nil {
		_, _ = fmt.Fprintf(t.stdout, "%s\n", res.StructuredOutput)
		return
	}
	if res.IsError {
		if t.stderr != nil {
			fmt.Fprintf(t.stderr, "ply: %s\n", res.Error)
		}
		return
	}
	// Written in two pieces: appending the newline would copy a large
	// answer once more.
	_, _ = io.WriteString(t.stdout, res.Result)
	if res.Result != "" && !strings.HasSuffix(res.Result, "\n") {
		_, _ = io.WriteString(t.stdout, "\n")
	}
}

// jsonSink keeps every message and prints them, the result last, as one
// JSON array at the end.
//
// UNFINISHED: a very large answer is held here several times over (in its
// assistant message, in the result, and in encoding/json's buffer, which
// grows by doubling), and written twice, in the message and the result;
// streamSink does the same per line. Writing large texts escaped as they
// go, as the session's transcript writer does, is not done: meanwhile -o
// json and -o stream-json need several times a huge answer's size.
type jsonSink struct {
	mu  sync.Mutex
	w   io.Writer
	all []any
}

func (j *jsonSink) Message(v any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.all = append(j.all, v)
}

func (*jsonSink) Progress(string) {}

func (j *jsonSink) Result(res Result) {
	j.Message(res)
	j.mu.Lock()
	defer j.mu.Unlock()
	enc := json.NewEncoder(j.w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(j.all)
}

// streamSink prints each message as one JSON line as it comes.
type streamSink struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewStreamJSON returns a sink printing each message as one JSON line on
// w. Its Message may be called by others than the run (the SDK session's
// control messages) and stays serialised with the run's lines.
func NewStreamJSON(w io.Writer) Sink {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &streamSink{enc: enc}
}

func (s *streamSink) Message(v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.enc.Encode(v)
}

func (*streamSink) Progress(string) {}

func (s *streamSink) Result(res Result) { s.Message(res) }

// discard drops everything: a format no sink prints.
type discard struct{}

func (discard) Message(any)     {}
func (discard) Progress(string) {}
func (discard) Result(Result)   {}

// nestedSink is a subagent's (see Nested): its messages and progress
// lines go to the sink below, the lines indented when that is its
// parent's, and its result is kept for the caller instead of printed.
type nestedSink struct {
	below  Sink
	indent string
	final  *Result
}

func (n nestedSink) Message(v any)        { n.below.Message(v) }
func (n nestedSink) Progress(line string) { n.below.Progress(n.indent + line) }
func (n nestedSink) Result(res Result)    { *n.final = res }
