package scheduler

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/tools"
)

// EmptyOutput replaces an empty successful output: some backends answer
// 400 to an empty tool result.
const EmptyOutput = "Tool execution succeeded."

// ToResponse is the one conversion from a tool result to what the model
// receives. The output is never empty; an error's output starts with
// "Error:" so the model cannot mistake it for content; media stay inside
// the same response, since extra parts get lost in protocol conversion.
func ToResponse(id, name string, r tools.Result) llm.FunctionResponse {
	out := r.Output
	if r.IsError {
		out = errorOutput(r)
	} else if strings.TrimSpace(out) == "" {
		out = EmptyOutput
	}
	return llm.FunctionResponse{ID: id, Name: name, Output: out, IsError: r.IsError, Media: r.Media}
}

func errorOutput(r tools.Result) string {
	msg := strings.TrimSpace(r.Output)
	if msg == "" {
		if r.ErrorType != "" {
			return "Error: the tool failed (" + r.ErrorType + ")."
		}
		return "Error: the tool failed."
	}
	if len(msg) >= 6 && strings.EqualFold(msg[:6], "error:") {
		return msg
	}
	return "Error: " + msg
}

// spillHead is how much of a spilled output stays in the response.
const spillHead = 2000

// applyBudget keeps a batch's total output within the budget: while it is
// over, the largest output is saved to a file and replaced by its head and
// a reference to the file, which the model can read in pieces.
func (s *Scheduler) applyBudget(calls []*Call) {
	if s.outputBudget <= 0 {
		return
	}
	sizes := make([]int, len(calls))
	total := 0
	for i, c := range calls {
		sizes[i] = len(c.Response().Output)
		total += sizes[i]
	}
	if total <= s.outputBudget {
		return
	}
	order := make([]int, len(calls))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[b], sizes[a]) })
	for _, i := range order {
		if total <= s.outputBudget {
			return
		}
		c := calls[i]
		full := c.Response().Output
		repl := s.spill(c, full)
		if len(repl) >= len(full) {
			continue // too small to gain anything
		}
		c.replaceOutput(repl)
		total -= len(full) - len(repl)
	}
}

// spill saves out to a file and returns the replacement text. When the
// file cannot be written, the text says the rest was dropped: the batch
// must not fail over its own bookkeeping.
func (s *Scheduler) spill(c *Call, out string) string {
	head := truncateUTF8(out, spillHead)
	if len(out) <= len(head)+200 {
		return out
	}
	path, err := s.writeSpill(c, out)
	if err != nil {
		return fmt.Sprintf("%s\n\n[Output truncated: %d bytes in total, the rest was dropped because it could not be saved (%v).]",
			head, len(out), err)
	}
	return fmt.Sprintf("%s\n\n[Output truncated: %d bytes in total. The full output was saved to %s; read it in ranges with read_file (offset, limit) or search it with grep_search to see the rest.]",
		head, len(out), path)
}

// writeSpill saves out as <tool>-<call id>.txt in the spill directory
// (a replayed id gets a unique suffix) and returns its path.
func (s *Scheduler) writeSpill(c *Call, out string) (string, error) {
	if err := os.MkdirAll(s.spillDir, 0o700); err != nil {
		return "", fmt.Errorf("create spill directory: %w", err)
	}
	name := safeFileName(c.Name + "-" + c.CallID)
	f, err := os.OpenFile(filepath.Join(s.spillDir, name+".txt"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		f, err = os.CreateTemp(s.spillDir, name+"-*.txt")
	}
	if err != nil {
		return "", fmt.Errorf("create spill file: %w", err)
	}
	_, werr := f.WriteString(out)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write spill file: %w", cmp.Or(werr, cerr))
	}
	return f.Name(), nil
}

// safeFileName keeps letters, digits, '-' and '_' of s: call ids come from
// the model's provider and must not steer the path.
func safeFileName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
