package repair

import (
	"reflect"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

func TestRepair(t *testing.T) {
	tests := []struct {
		name string
		in   []llm.Message
		opts Options
		want []llm.Message
		rep  Report
	}{
		{
			name: "empty history",
		},
		{
			name: "well formed",
			in:   []llm.Message{user(text("hi")), model(call("a"), call("b")), user(resp("a"), resp("b")), model(text("done"))},
			want: []llm.Message{user(text("hi")), model(call("a"), call("b")), user(resp("a"), resp("b")), model(text("done"))},
		},
		{
			name: "dangling call at the end gets a new user entry",
			in:   []llm.Message{user(text("hi")), model(call("a"))},
			want: []llm.Message{user(text("hi")), model(call("a")), user(synth("a"))},
			rep:  Report{Synthesized: 1, Inserted: 1},
		},
		{
			name: "dangling call at the end is left for the classifier",
			in:   []llm.Message{user(text("hi")), model(call("a"))},
			opts: Options{SkipTrailing: true},
			want: []llm.Message{user(text("hi")), model(call("a"))},
		},
		{
			name: "SkipTrailing still repairs the trailing entry's answers",
			in:   []llm.Message{model(call("a"), call("b")), user(text("go on"), resp("a"), resp("a"))},
			opts: Options{SkipTrailing: true},
			want: []llm.Message{model(call("a"), call("b")), user(resp("a"), text("go on"))},
			rep:  Report{Reordered: 1, Duplicates: 1},
		},
		{
			name: "SkipTrailing repairs earlier entries",
			in:   []llm.Message{model(call("a")), model(call("b"))},
			opts: Options{SkipTrailing: true},
			want: []llm.Message{model(call("a")), user(synth("a")), model(call("b"))},
			rep:  Report{Synthesized: 1, Inserted: 1},
		},
		{
			name: "pushed prompt after a dangling call",
			in:   []llm.Message{model(call("a"), call("b")), user(resp("a"), text("stop, do X"))},
			want: []llm.Message{model(call("a"), call("b")), user(resp("a"), synth("b"), text("stop, do X"))},
			rep:  Report{Synthesized: 1},
		},
		{
			name: "response one entry too late is moved",
			in:   []llm.Message{model(call("a")), user(text("hm")), user(resp("a"))},
			want: []llm.Message{model(call("a")), user(resp("a"), text("hm"))},
			rep:  Report{Moved: 1, Dropped: 1},
		},
		{
			name: "consecutive model entries, the wedge",
			in:   []llm.Message{model(call("a")), model(call("b")), user(resp("a"), resp("b"))},
			want: []llm.Message{model(call("a")), user(resp("a")), model(call("b")), user(resp("b"))},
			rep:  Report{Moved: 1, Inserted: 1},
		},
		{
			name: "consecutive model entries without any answer",
			in:   []llm.Message{model(call("a")), model(text("retried")), user(text("hi"))},
			want: []llm.Message{model(call("a")), user(synth("a")), model(text("retried")), user(text("hi"))},
			rep:  Report{Synthesized: 1, Inserted: 1},
		},
		{
			name: "duplicate responses keep the first",
			in:   []llm.Message{model(call("a")), user(synth("a"), resp("a"))},
			want: []llm.Message{model(call("a")), user(synth("a"))},
			rep:  Report{Duplicates: 1},
		},
		{
			name: "late real result after a planted synthetic is dropped",
			in:   []llm.Message{model(call("a")), user(synth("a")), model(text("ok")), user(resp("a"))},
			want: []llm.Message{model(call("a")), user(synth("a")), model(text("ok"))},
			rep:  Report{Duplicates: 1, Dropped: 1},
		},
		{
			name: "response with no call anywhere",
			in:   []llm.Message{user(text("hi"), resp("x")), model(text("hello"))},
			want: []llm.Message{user(text("hi")), model(text("hello"))},
			rep:  Report{Orphans: 1},
		},
		{
			name: "response before its call is an orphan",
			in:   []llm.Message{user(resp("a")), model(call("a"))},
			want: []llm.Message{model(call("a")), user(synth("a"))},
			rep:  Report{Orphans: 1, Dropped: 1, Synthesized: 1, Inserted: 1},
		},
		{
			name: "text before responses",
			in:   []llm.Message{model(call("a"), call("b")), user(text("note"), resp("b"), text("more"), resp("a"))},
			want: []llm.Message{model(call("a"), call("b")), user(resp("b"), resp("a"), text("note"), text("more"))},
			rep:  Report{Reordered: 1},
		},
		{
			name: "replayed id is owed twice",
			in:   []llm.Message{model(call("a")), user(resp("a")), model(call("a")), user(resp("a"))},
			want: []llm.Message{model(call("a")), user(resp("a")), model(call("a")), user(resp("a"))},
		},
		{
			name: "replayed id: the answer belongs to the nearest call",
			in:   []llm.Message{model(call("a")), user(text("x")), model(call("a")), user(resp("a"))},
			want: []llm.Message{model(call("a")), user(synth("a"), text("x")), model(call("a")), user(resp("a"))},
			rep:  Report{Synthesized: 1},
		},
		{
			name: "repeated id inside one entry is answered once",
			in:   []llm.Message{model(call("a"), call("a")), user(resp("a"), resp("a"))},
			want: []llm.Message{model(call("a"), call("a")), user(resp("a"))},
			rep:  Report{Duplicates: 1},
		},
		{
			name: "empty entries are dropped",
			in:   []llm.Message{user(), model(call("a")), {Role: llm.RoleModel}, user(resp("a"))},
			want: []llm.Message{model(call("a")), user(resp("a"))},
			rep:  Report{Dropped: 3, Moved: 1, Inserted: 1},
		},
		{
			name: "empty slot entry is filled, not dropped",
			in:   []llm.Message{model(call("a")), user()},
			want: []llm.Message{model(call("a")), user(synth("a"))},
			rep:  Report{Synthesized: 1},
		},
		{
			name: "response inside a model entry is moved out",
			in:   []llm.Message{model(call("a")), model(resp("a"), text("hi"))},
			want: []llm.Message{model(call("a")), user(resp("a")), model(text("hi"))},
			rep:  Report{Moved: 1, Inserted: 1},
		},
		{
			name: "moved and synthetic answers follow call order",
			in:   []llm.Message{model(call("a"), call("b"), call("c")), model(text("x")), user(resp("c"), resp("a"))},
			want: []llm.Message{model(call("a"), call("b"), call("c")), user(resp("a"), synth("b"), resp("c")), model(text("x"))},
			rep:  Report{Moved: 2, Synthesized: 1, Inserted: 1, Dropped: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := deepCopy(tt.in)
			got, rep := RepairWith(tt.in, tt.opts)
			if !reflect.DeepEqual(tt.in, before) {
				t.Fatalf("Repair modified its input")
			}
			if describe(got) != describe(tt.want) || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %s\nwant %s", describe(got), describe(tt.want))
			}
			if rep != tt.rep {
				t.Errorf("report %+v, want %+v", rep, tt.rep)
			}
			checkRepaired(t, tt.in, got, rep, tt.opts)
		})
	}
}

func TestRepairReturnsInputWhenWellFormed(t *testing.T) {
	in := []llm.Message{user(text("hi")), model(call("a")), user(resp("a"))}
	out, rep := Repair(in)
	if rep.Changed() || &out[0] != &in[0] {
		t.Fatalf("well-formed history was copied or changed: %v", rep)
	}
	if rep.String() != "history well formed" {
		t.Errorf("String() = %q", rep.String())
	}
}

func TestSyntheticResponse(t *testing.T) {
	p := InterruptedResponse(llm.FunctionCall{ID: "x1", Name: "read_file"})
	r := p.Response
	if r == nil || r.ID != "x1" || r.Name != "read_file" || !r.IsError || r.Output == "" {
		t.Fatalf("bad synthetic response %+v", r)
	}
}

func TestDuplicateCalls(t *testing.T) {
	h := []llm.Message{model(call("a"), call("b")), user(resp("a"), resp("b")), model(call("c"))}
	calls := []llm.FunctionCall{{ID: "b"}, {ID: "c"}, {ID: "d"}, {ID: ""}}
	got := DuplicateCalls(h, calls)
	if !reflect.DeepEqual(got, map[string]bool{"b": true}) {
		t.Fatalf("DuplicateCalls = %v, want only b", got)
	}
	if got := DuplicateCalls(h, []llm.FunctionCall{{ID: "z"}}); got != nil {
		t.Fatalf("DuplicateCalls = %v, want nil", got)
	}
	if got := DuplicateCalls(h, nil); got != nil {
		t.Fatalf("DuplicateCalls(nil) = %v", got)
	}
	p := DuplicateResponse(llm.FunctionCall{ID: "b", Name: "tool_b"})
	if p.Response.ID != "b" || !p.Response.IsError || p.Response.Output != DuplicateOutput {
		t.Fatalf("bad duplicate response %+v", p.Response)
	}
}

func TestRepeatedInBatch(t *testing.T) {
	ids := func(s ...string) []llm.FunctionCall {
		var out []llm.FunctionCall
		for _, id := range s {
			out = append(out, llm.FunctionCall{ID: id})
		}
		return out
	}
	tests := []struct {
		calls []llm.FunctionCall
		id    string
		ok    bool
	}{
		{nil, "", false},
		{ids("a", "b", "c"), "", false},
		{ids("", ""), "", false},
		{ids("a", "b", "b", "a"), "b", true},
		{ids("1", "2", "3", "4", "5", "6", "7", "8", "9", "3", "1"), "3", true},
		{ids("1", "2", "3", "4", "5", "6", "7", "8", "9", "10"), "", false},
	}
	for _, tt := range tests {
		id, ok := RepeatedInBatch(tt.calls)
		if id != tt.id || ok != tt.ok {
			t.Errorf("RepeatedInBatch(%v) = %q, %v; want %q, %v", tt.calls, id, ok, tt.id, tt.ok)
		}
	}
}

func TestRepairManyCallsInOneEntry(t *testing.T) {
	var calls, answers []llm.Part
	for i := range 5000 {
		id := string(rune('A'+i%40)) + string(rune('0'+i/40%10)) + string(rune('a'+i/400))
		calls = append(calls, call(id))
		if i%3 != 0 {
			answers = append(answers, resp(id))
		}
	}
	in := []llm.Message{model(calls...), user(answers...)}
	out, rep := Repair(in)
	checkRepaired(t, in, out, rep, Options{})
	if rep.Synthesized == 0 {
		t.Fatalf("nothing synthesised: %v", rep)
	}
}
