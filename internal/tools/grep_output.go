package tools

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// grepMode is what grep_search answers with.
type grepMode string

const (
	grepModeContent grepMode = "content"
	grepModeFiles   grepMode = "files_with_matches"
	grepModeCount   grepMode = "count"
)

// grepMaxContext bounds context, before and after: beyond it the answer
// is a file read, which read_file does better.
const grepMaxContext = 50

// grepView is how the answer shows what was found.
type grepView struct {
	mode          grepMode
	before, after int
}

// newGrepView checks the parameters that shape the answer.
func newGrepView(p grepParams) (grepView, *Result) {
	v := grepView{mode: grepMode(cmp.Or(p.OutputMode, string(grepModeContent)))}
	switch v.mode {
	case grepModeContent, grepModeFiles, grepModeCount:
	default:
		r := Errorf("INVALID_TOOL_PARAMS", "output_mode must be %q, %q or %q, got %q", grepModeContent, grepModeFiles, grepModeCount, p.OutputMode)
		return v, &r
	}
	lines := func(name string, f *float64, def int) (int, *Result) {
		if f == nil {
			return def, nil
		}
		if *f < 0 || *f != math.Trunc(*f) {
			r := Errorf("INVALID_TOOL_PARAMS", "%s must be a whole number of lines, 0 or more, got %v", name, *f)
			return 0, &r
		}
		return int(min(*f, grepMaxContext)), nil
	}
	c, r := lines("context", p.Context, 0)
	if r != nil {
		return v, r
	}
	if v.before, r = lines("before", p.Before, c); r != nil {
		return v, r
	}
	if v.after, r = lines("after", p.After, c); r != nil {
		return v, r
	}
	return v, nil
}

// grepCounts collects matches per file for the files and count modes.
type grepCounts struct {
	mu    sync.Mutex
	files []grepFileCount
	total int
}

type grepFileCount struct {
	rel   string
	count int
}

func (c *grepCounts) add(rel string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files = append(c.files, grepFileCount{rel, n})
	c.total += n
}

// addContext reads the lines around the kept matches of every file the
// answer can show. It reads the files a second time, which is cheap next
// to the search: only files with shown matches are read, and only up to
// their last context line.
func (s *grepSearch) addContext(ctx context.Context, target string, dir bool) {
	for i := range s.agg.files {
		if ctx.Err() != nil {
			return
		}
		f := &s.agg.files[i]
		path := target
		if dir {
			path = filepath.Join(target, filepath.FromSlash(f.rel))
		}
		f.lines = withContext(path, f.lines, s.view.before, s.view.after)
	}
}

// withContext returns matches (in line order) with the lines around them
// that the file has, marked as context.
func withContext(path string, matches []grepLine, before, after int) []grepLine {
	if len(matches) == 0 {
		return matches
	}
	want := map[int]bool{}
	isMatch := map[int]bool{}
	last := 0
	for _, m := range matches {
		isMatch[m.n] = true
		for n := max(1, m.n-before); n <= m.n+after; n++ {
			want[n] = true
			last = max(last, n)
		}
	}
	file, err := os.Open(path)
	if err != nil {
		return matches
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 64<<10), grepMaxLine)
	text := map[int]string{}
	for n := 1; n <= last && sc.Scan(); n++ {
		if want[n] && !isMatch[n] {
			text[n] = grepLineText(sc.Bytes())
		}
	}
	out := make([]grepLine, 0, len(want))
	mi := 0
	for _, n := range slices.Sorted(mapsKeys(want)) {
		switch {
		case mi < len(matches) && matches[mi].n == n:
			out = append(out, matches[mi])
			mi++
		default:
			if t, ok := text[n]; ok {
				out = append(out, grepLine{n: n, text: t, context: true})
			}
		}
	}
	return out
}

func mapsKeys(m map[int]bool) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// renderLine is one line of the answer: "L12: text" for a match, "L11-
// text" for context.
func renderLine(l grepLine) string {
	sep := ": "
	if l.context {
		sep = "- "
	}
	return "L" + strconv.Itoa(l.n) + sep + l.text + "\n"
}

// countsResult renders the files and count modes.
func (s *grepSearch) countsResult(pattern, where string, notes []string) Result {
	c := &s.counts
	files := slices.SortedFunc(slices.Values(c.files), func(x, y grepFileCount) int { return cmp.Compare(x.rel, y.rel) })
	var sb strings.Builder
	fmt.Fprintf(&sb, "Found %d %s in %d %s for pattern %q %s:\n---\n", c.total, pluralOf(c.total, "match", "matches"), len(files), pluralOf(len(files), "file", "files"), pattern, where)
	budget := grepMaxOutputChars - 200
	shown := 0
	for _, f := range files {
		line := f.rel + "\n"
		if s.view.mode == grepModeCount {
			line = f.rel + ": " + strconv.Itoa(f.count) + "\n"
		}
		if sb.Len()+len(line) > budget {
			break
		}
		sb.WriteString(line)
		shown++
	}
	sb.WriteString("---\n")
	if shown < len(files) {
		notes = append([]string{fmt.Sprintf("[Showing %d of %d files (output capped at %d characters). Use a more specific pattern, path or glob.]", shown, len(files), grepMaxOutputChars)}, notes...)
	}
	for _, n := range notes {
		sb.WriteString(n + "\n")
	}
	return Result{
		Output:  strings.TrimSuffix(sb.String(), "\n"),
		Display: fmt.Sprintf("Found %d %s in %d %s", c.total, pluralOf(c.total, "match", "matches"), len(files), pluralOf(len(files), "file", "files")),
	}
}

func pluralOf(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// result renders the answer.
func (s *grepSearch) result(pattern, target string, glob *string, stats walkStats) Result {
	where := fmt.Sprintf("in %s", target)
	if glob != nil && strings.TrimSpace(*glob) != "" {
		where += fmt.Sprintf(" (filter: %q)", *glob)
	}
	var notes []string
	if s.longLines > 0 {
		notes = append(notes, fmt.Sprintf("[%d line(s) longer than %d bytes were not searched.]", s.longLines, grepMaxLine))
	}
	if s.failed > 0 {
		notes = append(notes, fmt.Sprintf("[%d file(s) could not be read.]", s.failed))
	}
	if stats.Unreadable > 0 {
		notes = append(notes, strings.TrimPrefix(searchUnreadableNote(stats), "\n"))
	}
	a := &s.agg
	if s.view.mode != grepModeContent {
		a.total = s.counts.total
	}
	if a.total == 0 {
		out := fmt.Sprintf("No matches found for pattern %q %s.", pattern, where)
		if len(notes) > 0 {
			out += "\n" + strings.Join(notes, "\n")
		}
		return Result{Output: out, Display: "No matches found"}
	}
	if s.view.mode != grepModeContent {
		return s.countsResult(pattern, where, notes)
	}
	term := pluralOf(a.total, "match", "matches")
	var sb strings.Builder
	fmt.Fprintf(&sb, "Found %d %s for pattern %q %s:\n---\n", a.total, term, pattern, where)
	budget := grepMaxOutputChars - sb.Len() - 200 - len(strings.Join(notes, "\n"))
	files := slices.SortedFunc(slices.Values(a.files), func(x, y grepFileHits) int { return cmp.Compare(x.rel, y.rel) })
	shown, full := 0, false
	for _, f := range files {
		head := "File: " + f.rel + "\n"
		if sb.Len()+len(head) > budget {
			full = true
			break
		}
		sb.WriteString(head)
		prev := 0
		for _, l := range f.lines {
			if shown == a.keep {
				break
			}
			line := renderLine(l)
			if s.view.before+s.view.after > 0 && prev > 0 && l.n > prev+1 {
				line = "--\n" + line // a gap between context groups
			}
			if sb.Len()+len(line) > budget {
				full = true
				break
			}
			sb.WriteString(line)
			prev = l.n
			if !l.context {
				shown++
			}
		}
		sb.WriteString("---\n")
		if full || shown == a.keep {
			break
		}
	}
	if shown < a.total {
		why := fmt.Sprintf("limit %d", a.keep)
		if full {
			why = fmt.Sprintf("output capped at %d characters", grepMaxOutputChars)
		}
		notes = append([]string{fmt.Sprintf("[Showing the first %d of %d matches (%s); %d omitted. Use a more specific pattern, path or glob to narrow the search.]", shown, a.total, why, a.total-shown)}, notes...)
	}
	for _, n := range notes {
		sb.WriteString(n)
		sb.WriteByte('\n')
	}
	return Result{
		Output:  strings.TrimSuffix(sb.String(), "\n"),
		Display: fmt.Sprintf("Found %d %s", a.total, term),
	}
}
