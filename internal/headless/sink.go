package headless

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/plyhq/ply/internal/bigjson"
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
// JSON array at the end. The messages hold their texts by reference (the
// chat's reply, the tool's output), and long ones are escaped straight
// into the output (see writeJSON): a huge answer is held once, not in an
// encoding buffer as well.
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
	bw := bufio.NewWriterSize(j.w, 64<<10)
	sep := "["
	for _, v := range j.all {
		// As encoding/json writes a slice: no spaces.
		_, _ = bw.WriteString(sep)
		sep = ","
		if writeJSON(bw, v, "") != nil {
			return
		}
	}
	_, _ = bw.WriteString("]\n")
	_ = bw.Flush()
	j.all = nil
}

// streamSink prints each message as one JSON line as it comes.
type streamSink struct {
	mu sync.Mutex
	w  *bufio.Writer
}

// NewStreamJSON returns a sink printing each message as one JSON line on
// w. Its Message may be called by others than the run (the SDK session's
// control messages) and stays serialised with the run's lines.
func NewStreamJSON(w io.Writer) Sink {
	return &streamSink{w: bufio.NewWriterSize(w, 64<<10)}
}

func (s *streamSink) Message(v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = writeJSON(s.w, v, "\n")
}

func (*streamSink) Progress(string) {}

func (s *streamSink) Result(res Result) { s.Message(res) }

// writeJSON writes v as encoding/json would (HTML escaping off), followed
// by end, and flushes w. Long texts of the run's messages (an answer, a
// thought, a tool's output, the result) are not encoded into a buffer:
// they are escaped straight into w (package bigjson).
func writeJSON(w *bufio.Writer, v any, end string) error {
	var h bigjson.Holder
	ps, err := h.Encode("", holdTexts(v, &h))
	if err != nil {
		return err
	}
	tail := ps.Tail()
	*tail = append(*tail, end...)
	return ps.Write(w)
}

// holdTexts returns v with its long texts held by h, in the order they
// are encoded; messages of other kinds are returned as they are.
func holdTexts(v any, h *bigjson.Holder) any {
	switch m := v.(type) {
	case Assistant:
		m.Message.Content = holdBlocks(m.Message.Content, h)
		return m
	case User:
		m.Message.Content = holdBlocks(m.Message.Content, h)
		return m
	case Result:
		if len(m.Result) >= bigjson.Min {
			m.Result = h.Hold(m.Result)
		}
		return m
	}
	return v
}

// holdBlocks returns blocks, copied if any of their texts is held by h.
func holdBlocks(blocks []Block, h *bigjson.Holder) []Block {
	var out []Block
	for i, b := range blocks {
		content, isText := b.Content.(string)
		isText = isText && len(content) >= bigjson.Min
		if len(b.Text) < bigjson.Min && len(b.Thinking) < bigjson.Min && !isText {
			continue
		}
		if out == nil {
			out = append([]Block(nil), blocks...)
		}
		// Field order in the encoding: text, thinking, content.
		if len(b.Text) >= bigjson.Min {
			out[i].Text = h.Hold(b.Text)
		}
		if len(b.Thinking) >= bigjson.Min {
			out[i].Thinking = h.Hold(b.Thinking)
		}
		if isText {
			out[i].Content = h.Hold(content)
		}
	}
	if out == nil {
		return blocks
	}
	return out
}

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
