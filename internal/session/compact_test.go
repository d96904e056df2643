package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/llm"
)

// liveSession plays a chat near its context limit the way package chat
// changes its history: tool results cut copy-on-write, older history
// summarised, cut results restored, repair inserting entries, a rewind
// and a resume. It writes everything to w as ply does, and to old, a file
// in the shape of the format before compaction lines held changes: every
// compaction and rewind copies the whole history.
type liveSession struct {
	t    testing.TB
	w    *Writer
	old  *bytes.Buffer
	live []llm.Message
	// appended is the size of every message appended, encoded.
	appended int
	round    int
	full     map[string]string // results cut, by call id
}

func newLiveSession(t testing.TB, w *Writer) *liveSession {
	old := &bytes.Buffer{}
	fmt.Fprintf(old, `{"type":"session","version":1,"id":"old","created":"2026-01-01T00:00:00Z"}`+"\n")
	return &liveSession{t: t, w: w, old: old, full: map[string]string{}}
}

func (s *liveSession) line(v any) {
	if err := encodeTo(s.old, v); err != nil {
		s.t.Fatal(err)
	}
}

func (s *liveSession) push(m llm.Message) {
	s.live = append(s.live, m)
	s.w.Append(m)
	s.line(map[string]any{"type": "entry", "message": m, "seq": 0})
	b, _ := json.Marshal(m)
	s.appended += len(b)
}

func (s *liveSession) compacted() {
	s.w.AppendCompaction(slices.Clone(s.live))
	s.line(map[string]any{"type": "compaction", "time": time.Time{}, "history": s.live})
}

// roundTrip is one model reply with a call and its result.
func (s *liveSession) roundTrip() {
	s.round++
	id := fmt.Sprintf("call_%d", s.round)
	s.push(model(llm.FinishToolCalls, text(fmt.Sprintf("Reading part %d.", s.round)),
		call(id, "read_file", fmt.Sprintf(`{"path":"f%d.go"}`, s.round))))
	out := strings.Repeat(fmt.Sprintf("línea %d — of some length to cut, ünïcödé …\n", s.round), 60)
	s.push(user(resp(id, "read_file", out)))
}

// cutOldest cuts the oldest result not cut yet, as chat's cutResults does.
func (s *liveSession) cutOldest() bool {
	for i := range s.live {
		for j, p := range s.live[i].Parts {
			if p.Response == nil || s.full[p.Response.ID] != "" {
				continue
			}
			m := &s.live[i]
			m.Parts = append([]llm.Part(nil), m.Parts...)
			r := *p.Response
			s.full[r.ID] = r.Output
			head, tail := 100, len(r.Output)-50
			for !utf8.RuneStart(r.Output[head]) {
				head--
			}
			for !utf8.RuneStart(r.Output[tail]) {
				tail++
			}
			r.Output = r.Output[:head] + "\n[… lines were cut …]\n" + r.Output[tail:]
			m.Parts[j].Response = &r
			return true
		}
	}
	return false
}

// restoreNewest puts back the full text of the newest result cut.
func (s *liveSession) restoreNewest() {
	for i := len(s.live) - 1; i >= 0; i-- {
		for j, p := range s.live[i].Parts {
			if p.Response != nil && s.full[p.Response.ID] != "" {
				m := &s.live[i]
				m.Parts = append([]llm.Part(nil), m.Parts...)
				r := *p.Response
				r.Output = s.full[r.ID]
				delete(s.full, r.ID)
				m.Parts[j].Response = &r
				return
			}
		}
	}
}

// summarise replaces the older half of the history with a summary and its
// acknowledgement.
func (s *liveSession) summarise() {
	keep := len(s.live) / 2
	for keep < len(s.live) && s.live[keep].Role != llm.RoleModel {
		keep++
	}
	sum := []llm.Message{
		user(text(fmt.Sprintf("<state_snapshot>round %d</state_snapshot>", s.round))),
		model(llm.FinishStop, text("Got it.")),
	}
	s.live = append(sum, s.live[keep:]...)
	s.compacted()
}

func (s *liveSession) rewind(to int) {
	s.live = slices.Clone(s.live[:to])
	s.w.AppendRewind(Rewind{Prompt: 1, Checkpoint: "c", Conversation: true, History: slices.Clone(s.live)})
	s.line(map[string]any{"type": "rewind", "prompt": 1, "checkpoint": "c", "conversation": true, "history": s.live})
}

func (s *liveSession) play(rounds int) {
	for range rounds {
		s.roundTrip()
		switch {
		case s.round%40 == 0:
			s.summarise()
		case s.round%13 == 0:
			s.restoreNewest()
			s.compacted()
		case s.round%17 == 0:
			// Repair answering a call with a synthetic result, mid-history.
			at := len(s.live) / 3
			s.live = slices.Insert(s.live, at, user(text("[synthetic]")))
			s.compacted()
		case s.round > 4:
			if s.cutOldest() {
				s.compacted()
			}
		}
	}
}

func encoded(t testing.TB, h []llm.Message) []byte {
	t.Helper()
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkSame fails unless the transcript at path and the old-shaped one
// rebuild the live history exactly.
func (s *liveSession) checkSame(path string) *Transcript {
	s.t.Helper()
	oldPath := s.t.TempDir() + "/old.jsonl"
	if err := os.WriteFile(oldPath, s.old.Bytes(), 0o600); err != nil {
		s.t.Fatal(err)
	}
	got, want := mustLoad(s.t, path), mustLoad(s.t, oldPath)
	noWarnings(s.t, got)
	noWarnings(s.t, want)
	if !reflect.DeepEqual(got.History, want.History) {
		s.t.Fatalf("rebuilt history differs from the full-copy one: %d entries, want %d", len(got.History), len(want.History))
	}
	if g, w, l := encoded(s.t, got.History), encoded(s.t, want.History), encoded(s.t, s.live); !bytes.Equal(g, w) || !bytes.Equal(g, l) {
		s.t.Fatalf("rebuilt history differs in its bytes:\n got %.300s\nwant %.300s\nlive %.300s", g, w, l)
	}
	// Replayed record by record, as Prompts does, it is the same.
	eager, _, err := replay(path, func(*Transcript, *record) {})
	if err != nil {
		s.t.Fatal(err)
	}
	if !reflect.DeepEqual(eager.History, got.History) {
		s.t.Fatalf("replayed record by record, the history differs")
	}
	if got.Compactions != want.Compactions {
		s.t.Errorf("%d compactions, the full-copy transcript %d", got.Compactions, want.Compactions)
	}
	return got
}

func TestCompactionRecordsRebuildTheLiveHistory(t *testing.T) {
	_, _, w := newSession(t, "cuts")
	s := newLiveSession(t, w)
	s.play(60)
	s.rewind(len(s.live) - 4)
	s.play(30)
	mustClose(t, w)
	s.checkSame(w.Path())

	// Resumed, the live history is the one loaded; changes go on from it.
	w, tr, err := Open(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	s.w, s.live = w, tr.History
	s.play(70)
	mustClose(t, w)
	tr = s.checkSame(w.Path())
	if tr.Compactions < 100 {
		t.Errorf("only %d compactions: the test exercises too little", tr.Compactions)
	}
}

// A transcript of cut after cut holds each result about once: its size
// stays within twice the messages appended.
func TestCompactionRecordsStaySmall(t *testing.T) {
	_, _, w := newSession(t, "small")
	s := newLiveSession(t, w)
	s.play(250)
	mustClose(t, w)
	s.checkSame(w.Path())
	size := fileSize(t, w.Path())
	t.Logf("%d rounds: transcript %d bytes, messages appended %d bytes (%.2fx); the full-copy shape %d bytes",
		s.round, size, s.appended, float64(size)/float64(s.appended), s.old.Len())
	if size > 2*int64(s.appended) {
		t.Errorf("transcript of %d bytes holds %d bytes of messages: more than twice", size, s.appended)
	}
}

// A transcript an older ply wrote, whose compaction lines copy the whole
// history, resumes, and goes on with lines of changes.
func TestOldCompactionRecordsResume(t *testing.T) {
	h := realistic()
	dir := t.TempDir()
	path := dir + "/old.jsonl"
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":1,"id":"old","cwd":"/w","created":"2026-01-01T00:00:00Z","model":"m"}` + "\n")
	entry := func(m llm.Message, seq int) {
		if err := encodeTo(&b, map[string]any{"type": "entry", "message": m, "seq": seq, "time": "2026-01-01T00:00:00Z"}); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range h[:4] {
		entry(m, i+1)
	}
	summary := user(text("<state_snapshot>fixing pkg/a</state_snapshot>"))
	if err := encodeTo(&b, map[string]any{"type": "compaction", "time": "2026-01-01T00:00:00Z", "history": []llm.Message{summary, h[3]}}); err != nil {
		t.Fatal(err)
	}
	entry(h[4], 5)
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	w, tr, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	noWarnings(t, tr)
	want := []llm.Message{summary, h[3], h[4]}
	if !reflect.DeepEqual(tr.History, want) {
		t.Fatalf("history of the old transcript:\n got %+v\nwant %+v", tr.History, want)
	}
	cut := slices.Clone(tr.History)
	cut[1].Parts = []llm.Part{text("The fix is (cut)")}
	w.AppendCompaction(cut)
	w.Append(h[5])
	mustClose(t, w)
	tr = mustLoad(t, path)
	noWarnings(t, tr)
	want = []llm.Message{summary, cut[1], h[4], h[5]}
	if !bytes.Equal(encoded(t, tr.History), encoded(t, want)) || tr.Compactions != 2 || tr.lastSeq != 6 {
		t.Errorf("after a compaction of changes: %s (%d compactions, seq %d)", encoded(t, tr.History), tr.Compactions, tr.lastSeq)
	}
}

// A compaction line whose ops point outside the history it follows (a line
// before it was lost) keeps what it can, with warnings.
func TestCompactionOpsOutOfRange(t *testing.T) {
	_, _, w := newSession(t, "range")
	h := realistic()
	w.Append(h[0])
	w.Append(h[1])
	mustClose(t, w)
	appendRaw(t, w.Path(), `{"type":"compaction","base":3,"ops":[{"from":1,"n":1},{"from":2,"n":1},{"from":0,"parts":[{"i":5,"part":{"text":"x"}}]},{"from":-1,"n":1},{"message":{"role":"user","parts":[{"text":"kept"}]}}]}`+"\n")
	tr := mustLoad(t, w.Path())
	if len(tr.History) != 3 || tr.History[2].Parts[0].Text != "kept" {
		t.Errorf("history: %+v", tr.History)
	}
	if !hasWarning(tr, 4, "a line before it was lost") || !hasWarning(tr, 4, "applied in part") {
		t.Errorf("warnings: %v", tr.Warnings)
	}
}

func FuzzCompactionOps(f *testing.F) {
	f.Add(`[{"from":0,"n":2},{"message":{"role":"user","parts":[]}}]`)
	f.Add(`[{"from":1,"parts":[{"i":0,"part":{"text":"x"}}]}]`)
	f.Add(`[{"from":9223372036854775807,"n":9223372036854775807}]`)
	h := realistic()
	f.Fuzz(func(t *testing.T, ops string) {
		var o []rawOp
		if json.Unmarshal([]byte(ops), &o) != nil {
			return
		}
		got, err := applyOps(entries(h), o, 1, nil)
		if err == nil && len(got) > len(o)*len(h) {
			t.Fatalf("%d entries from %d ops", len(got), len(o))
		}
	})
}

func TestDiffHistory(t *testing.T) {
	h := realistic()
	cut := slices.Clone(h)
	cut[2].Parts = slices.Clone(cut[2].Parts)
	cut[2].Parts[0] = resp("call_1", "read_file", "cut")
	next := append([]llm.Message{user(text("summary"))}, cut[1:]...)
	next = append(next, user(text("new")))
	ops := diffHistory(h, next)
	want := []compactOp{
		{Message: &next[0]},
		{From: 1, N: 1},
		{From: 2, Parts: []partEdit{{I: 0, Part: &cut[2].Parts[0]}}},
		{From: 3, N: 3},
		{Message: &next[len(next)-1]},
	}
	if !reflect.DeepEqual(ops, want) {
		t.Errorf("ops:\n got %+v\nwant %+v", ops, want)
	}
	b, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	var raw []rawOp
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	got, err := applyOps(entries(h), raw, 1, nil)
	tr := &Transcript{hist: got}
	if h, _ := tr.materialize(); err != nil || !reflect.DeepEqual(h, next) {
		t.Errorf("applied: %v, %+v", err, got)
	}
}

func entries(h []llm.Message) []histEntry {
	e := make([]histEntry, len(h))
	for i, m := range h {
		e[i] = histEntry{msg: m}
	}
	return e
}

// An entry line whose message is garbled behind its well-formed head is
// skipped with a warning when the history still holds it at the end, and
// costs nothing when a compaction dropped it.
func TestGarbledEntryKeptAsJSON(t *testing.T) {
	_, _, w := newSession(t, "garbled")
	h := realistic()
	w.Append(h[0])
	w.Append(h[1])
	mustClose(t, w)
	appendRaw(t, w.Path(), `{"type":"entry","message":{"role":"user","parts":[{"text":"cut sh,"seq":3,"time":"2026-01-01T00:00:00Z"}`+"\n")
	tr := mustLoad(t, w.Path())
	if len(tr.History) != 2 || !hasWarning(tr, 4, "garbled line skipped") || tr.lastSeq != 3 {
		t.Errorf("history %d entries, seq %d, warnings %v", len(tr.History), tr.lastSeq, tr.Warnings)
	}
	w, _, err := Open(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	w.AppendCompaction(h[:1])
	mustClose(t, w)
	tr = mustLoad(t, w.Path())
	noWarnings(t, tr)
	if !reflect.DeepEqual(tr.History, h[:1]) {
		t.Errorf("history after the compaction: %+v", tr.History)
	}
}

func TestSpliceOf(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, c := range []struct {
		old, out string
		ok       bool
	}{
		{long + "é" + long, long + "è" + long, true}, // the runes share their first byte
		{long + "abc" + long, long + long, true},
		{long + "abc", long + "abd", true},
		{"short", "shorter", false},
		{long + "\xff", long + "\xfe", false}, // not UTF-8
	} {
		a, b := resp("c", "read_file", c.old), resp("c", "read_file", c.out)
		sp, ok := spliceOf(&a, &b)
		if ok != c.ok {
			t.Errorf("%q → %q: splice %v, want %v", c.old, c.out, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if !utf8.ValidString(sp.Text) {
			t.Errorf("%q → %q: text %q is not UTF-8", c.old, c.out, sp.Text)
		}
		if err := spliceOutput(&a, sp); err != nil || a.Response.Output != c.out {
			t.Errorf("%q → %q: spliced %q, %v", c.old, c.out, a.Response.Output, err)
		}
	}
	a, b := resp("c", "read_file", long), resp("c", "read_file", long+"y")
	b.Response.IsError = true
	if _, ok := spliceOf(&a, &b); ok {
		t.Error("a splice of results that differ in more than their output")
	}
}

// sameShape and samePart compare every field of a message and a part; a
// field added to them must be added there, or a change to it would go
// unrecorded.
func TestCompareCoversEveryField(t *testing.T) {
	for _, c := range []struct {
		v    any
		want int
	}{{llm.Message{}, 4}, {llm.Part{}, 6}, {llm.FunctionResponse{}, 5}, {llm.Media{}, 2}} {
		if n := reflect.TypeOf(c.v).NumField(); n != c.want {
			t.Errorf("%T has %d fields, sameShape and samePart compare %d", c.v, n, c.want)
		}
	}
}

// An entry rewritten in place line after line (the first entries of a
// history summarised again and again) keeps only the edits its last state
// depends on, and decodes to what applying every edit in turn gives.
func TestRepeatedPartEditsKeepWhatTheLastDependsOn(t *testing.T) {
	orig := user(resp("c1", "read_file", "original output"), text("note"))
	raw, err := json.Marshal(orig)
	if err != nil {
		t.Fatal(err)
	}
	whole := func(p llm.Part) rawPartEdit {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return rawPartEdit{I: 0, Part: b}
	}
	h := []histEntry{{raw: raw, line: 1}}
	for i := range 100 {
		ops := []rawOp{{From: 0, Parts: []rawPartEdit{
			whole(resp("c1", "read_file", fmt.Sprintf("output %03d of the result", i))),
			{I: 0, Output: &splice{Keep: 7, Text: "[cut]", Tail: 3}},
		}}}
		if h, err = applyOps(h, ops, i+2, nil); err != nil {
			t.Fatal(err)
		}
	}
	h, err = applyOps(h, []rawOp{{From: 0, Parts: []rawPartEdit{{I: 1, Part: []byte(`{"text":"new note"}`)}}}}, 200, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(h[0].edits); n != 3 {
		t.Errorf("%d edits kept, want 3: the last whole part, its splice and the note", n)
	}
	tr := &Transcript{hist: h}
	got, _ := tr.materialize()
	want := user(resp("c1", "read_file", "output [cut]ult"), text("new note"))
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) || len(tr.Warnings) > 0 {
		t.Errorf("materialised %+v (warnings %v), want %+v", got, tr.Warnings, want)
	}
}
