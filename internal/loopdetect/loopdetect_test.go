package loopdetect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func readArgs(path string) string { return fmt.Sprintf(`{"absolute_path": %q}`, path) }

func shellArgs(cmd string) string { return fmt.Sprintf(`{"command": %q}`, cmd) }

// mustPass fails the test when the call trips a guard.
func mustPass(t *testing.T, d *Detector, name, args string) {
	t.Helper()
	if l := d.CheckToolCall(name, args); l != nil {
		t.Fatalf("%s %s tripped %s: %s", name, args, l.Guard, l.Message)
	}
}

func mustTrip(t *testing.T, d *Detector, name, args string, g Guard) *Loop {
	t.Helper()
	l := d.CheckToolCall(name, args)
	if l == nil {
		t.Fatalf("%s %s did not trip %s", name, args, g)
	}
	if l.Guard != g {
		t.Fatalf("%s %s tripped %s, want %s: %s", name, args, l.Guard, g, l.Message)
	}
	return l
}

func TestIdenticalCallsTripOnTheFifth(t *testing.T) {
	d := New(Options{})
	for range IdenticalCalls - 1 {
		mustPass(t, d, "read_file", readArgs("a.go"))
	}
	l := mustTrip(t, d, "read_file", readArgs("a.go"), GuardIdenticalCalls)
	want := "ply stopped: the model called read_file with the same arguments 5 times in a row"
	if l.Message != want || l.Count != 5 || l.Tool != "read_file" || l.Error() != want {
		t.Fatalf("loop %+v", l)
	}
}

func TestIdenticalCallsCanonicalArguments(t *testing.T) {
	d := New(Options{})
	for _, args := range []string{
		`{"a":1,"b":"x"}`, `{"b":"x","a":1}`, "{ \"a\" : 1 ,\n \"b\":\"x\" }", `{"b": "x", "a": 1}`,
	} {
		mustPass(t, d, "grep_search", args)
	}
	mustTrip(t, d, "grep_search", `{"a":1,  "b":"x"}`, GuardIdenticalCalls)

	// Malformed arguments repeated are still a repetition.
	d = New(Options{})
	for range IdenticalCalls - 1 {
		mustPass(t, d, "edit", `{"path": "a`)
	}
	mustTrip(t, d, "edit", ` {"path": "a `, GuardIdenticalCalls)
}

func TestDifferentCallInBetweenResets(t *testing.T) {
	d := New(Options{})
	for range IdenticalCalls - 1 {
		mustPass(t, d, "read_file", readArgs("a.go"))
	}
	mustPass(t, d, "read_file", readArgs("b.go"))
	for range IdenticalCalls - 1 {
		mustPass(t, d, "read_file", readArgs("a.go"))
	}
	// Same arguments, another tool: not the same call.
	mustPass(t, d, "write_file", readArgs("a.go"))
}

func TestShellStagnation(t *testing.T) {
	d := New(Options{})
	status := shellArgs("git status")
	// Interleave reads so the identical-call guard stays out of it.
	for i := range ShellStagnation - 1 {
		mustPass(t, d, "run_shell_command", status)
		mustPass(t, d, "read_file", readArgs(fmt.Sprint(i)))
	}
	l := mustTrip(t, d, "run_shell_command", `{"command": "git  status", "description": "check again"}`, GuardShellStagnation)
	if l.Count != ShellStagnation || !strings.Contains(l.Message, `"git status"`) {
		t.Fatalf("loop %+v", l)
	}
}

func TestShellStagnationResetByChange(t *testing.T) {
	for _, change := range []struct{ name, args string }{
		{"edit", `{"file_path": "a.go"}`},
		{"run_shell_command", shellArgs("go test ./...")},
		{"some_mcp_tool", `{}`},
	} {
		d := New(Options{})
		for i := range ShellStagnation - 1 {
			mustPass(t, d, "run_shell_command", shellArgs("ls -la"))
			mustPass(t, d, "glob", fmt.Sprintf(`{"pattern": "%d"}`, i))
		}
		mustPass(t, d, change.name, change.args)
		for range ShellStagnation - 1 {
			mustPass(t, d, "run_shell_command", shellArgs("ls -la"))
			mustPass(t, d, "glob", `{"pattern": "*"}`)
		}
	}
}

func TestShellStagnationDistinctCommands(t *testing.T) {
	// Eight different inspection commands are exploration, not stagnation.
	d := New(Options{})
	for i := range 3 * ShellStagnation {
		mustPass(t, d, "run_shell_command", shellArgs(fmt.Sprintf("cat file%d.go", i)))
	}
}

func TestTurnCapAllowsExactlyMax(t *testing.T) {
	d := New(Options{})
	for i := range MaxCallsPerTurn {
		mustPass(t, d, "edit", fmt.Sprintf(`{"n": %d}`, i))
	}
	l := mustTrip(t, d, "edit", `{"n": -1}`, GuardTurnCap)
	if l.Count != MaxCallsPerTurn+1 || !strings.Contains(l.Message, "more than 100 tool calls") {
		t.Fatalf("loop %+v", l)
	}
	// Every further call of the turn is refused too.
	mustTrip(t, d, "read_file", readArgs("x"), GuardTurnCap)

	d.Reset()
	mustPass(t, d, "edit", `{"n": 0}`)
}

func TestTurnCapOption(t *testing.T) {
	d := New(Options{MaxCallsPerTurn: 3})
	for i := range 3 {
		mustPass(t, d, "edit", fmt.Sprintf(`{"n": %d}`, i))
	}
	mustTrip(t, d, "edit", `{"n": 3}`, GuardTurnCap)
}

func TestHeuristicsOffByDefault(t *testing.T) {
	d := New(Options{})
	a, b := readArgs("a"), `{"file_path": "a"}`
	for range 10 {
		mustPass(t, d, "read_file", a)
		mustPass(t, d, "edit", b)
	}
	for range 100 {
		if l := d.CheckContent("This is the same sentence, said again and again. "); l != nil {
			t.Fatalf("content tripped with heuristics off: %v", l)
		}
		if l := d.CheckThought("I keep thinking the very same thing over and over here. "); l != nil {
			t.Fatalf("thought tripped with heuristics off: %v", l)
		}
	}
	if GuardIdenticalCalls.Heuristic() || !GuardAlternation.Heuristic() {
		t.Fatal("Heuristic() wrong")
	}
}

func TestReadChurnColdStart(t *testing.T) {
	d := New(Options{Heuristics: true})
	// Six parallel reads and two more, in a turn that has only read.
	for i := range 6 {
		mustPass(t, d, "read_file", readArgs(fmt.Sprintf("f%d", i)))
	}
	mustPass(t, d, "grep_search", `{"pattern": "x"}`)
	mustPass(t, d, "read_file", readArgs("f6"))
	mustPass(t, d, "read_file", readArgs("f7"))
	mustPass(t, d, "run_shell_command", shellArgs("git log -5"))
}

func TestReadChurnAfterEdit(t *testing.T) {
	// The same six parallel reads and two more, with an edit in between:
	// the turn is no longer exploring.
	d := New(Options{Heuristics: true})
	for i := range 6 {
		mustPass(t, d, "read_file", readArgs(fmt.Sprintf("f%d", i)))
	}
	mustPass(t, d, "edit", `{"file_path": "f0"}`)
	mustPass(t, d, "read_file", readArgs("f6"))
	mustTrip(t, d, "read_file", readArgs("f7"), GuardReadChurn)

	d = New(Options{Heuristics: true})
	mustPass(t, d, "edit", `{"file_path": "f0"}`)
	for i := range ReadChurn - 1 {
		mustPass(t, d, "read_file", readArgs(fmt.Sprintf("f%d", i)))
	}
	l := mustTrip(t, d, "read_file", readArgs("f7"), GuardReadChurn)
	if l.Count != ReadChurn {
		t.Fatalf("loop %+v", l)
	}
}

func TestGlobalRepetition(t *testing.T) {
	d := New(Options{Heuristics: true})
	grep := `{"pattern": "TODO"}`
	for i := range GlobalRepetition - 1 {
		mustPass(t, d, "grep_search", grep)
		mustPass(t, d, "glob", fmt.Sprintf(`{"pattern": "%d"}`, i))
	}
	mustTrip(t, d, "grep_search", grep, GuardGlobalRepetition)
}

func TestGlobalRepetitionWindow(t *testing.T) {
	// Spread wider than the window: no trip.
	d := New(Options{Heuristics: true})
	grep := `{"pattern": "TODO"}`
	for i := range 40 {
		if i%3 == 0 {
			mustPass(t, d, "grep_search", grep)
		} else {
			mustPass(t, d, "glob", fmt.Sprintf(`{"pattern": "%d"}`, i))
		}
	}
}

func TestAlternation(t *testing.T) {
	d := New(Options{Heuristics: true})
	a, b := shellArgs("go build ./..."), `{"file_path": "a.go", "old": "x", "new": "y"}`
	mustPass(t, d, "run_shell_command", a)
	mustPass(t, d, "edit", b)
	mustPass(t, d, "run_shell_command", a)
	mustPass(t, d, "edit", b)
	mustPass(t, d, "run_shell_command", a)
	l := mustTrip(t, d, "edit", b, GuardAlternation)
	if !strings.Contains(l.Message, "between run_shell_command and edit") {
		t.Fatalf("message %q", l.Message)
	}

	// Two and a half cycles do not trip; A,A,A,B,A,B is not alternation.
	d = New(Options{Heuristics: true})
	for _, c := range []string{a, a, a, b, a, b} {
		name := "edit"
		if c == a {
			name = "run_shell_command"
		}
		mustPass(t, d, name, c)
	}
}

func TestRetryRollsBack(t *testing.T) {
	d := New(Options{Heuristics: true})
	d.StartRound()
	grep := `{"pattern": "x"}`
	for range 3 {
		mustPass(t, d, "grep_search", grep)
	}
	d.Retry()
	// The retried stream replays the same three calls: 3, not 6.
	for range 3 {
		mustPass(t, d, "grep_search", grep)
	}
	// The next round builds on the retried state: 4 and 5 consecutive.
	d.StartRound()
	mustPass(t, d, "grep_search", grep)
	mustTrip(t, d, "grep_search", grep, GuardIdenticalCalls)
}

func TestRetryRollsBackTurnCapAndText(t *testing.T) {
	d := New(Options{Heuristics: true, MaxCallsPerTurn: 4})
	d.StartRound()
	mustPass(t, d, "edit", `{"n": 1}`)
	mustPass(t, d, "edit", `{"n": 2}`)
	d.StartRound()
	mustPass(t, d, "edit", `{"n": 3}`)
	mustPass(t, d, "edit", `{"n": 4}`)
	d.Retry()
	mustPass(t, d, "edit", `{"n": 3}`)
	mustPass(t, d, "edit", `{"n": 4}`)
	mustTrip(t, d, "edit", `{"n": 5}`, GuardTurnCap)

	d = New(Options{Heuristics: true})
	thought := "I should look at the configuration loader once more. "
	d.StartRound()
	if d.CheckThought(thought+thought) != nil {
		t.Fatal("two thoughts tripped")
	}
	d.Retry()
	if d.CheckThought(thought+thought) != nil {
		t.Fatal("the retried thoughts counted twice")
	}
	if l := d.CheckThought(thought); l == nil || l.Guard != GuardRepeatedThoughts || l.Count != RepeatedThoughts {
		t.Fatalf("third thought: %+v", l)
	}
}

func TestResetForgets(t *testing.T) {
	d := New(Options{})
	for range IdenticalCalls - 1 {
		mustPass(t, d, "read_file", readArgs("a"))
	}
	d.Reset()
	for range IdenticalCalls - 1 {
		mustPass(t, d, "read_file", readArgs("a"))
	}
}

func TestRepeatedContent(t *testing.T) {
	d := New(Options{Heuristics: true})
	sentence := "I will now fix the failing test in the parser."
	// Stream in awkward pieces: boundaries fall inside words and between
	// the period and its space.
	stream := strings.Repeat(sentence+" ", RepeatedContent)
	var l *Loop
	for i := 0; i < len(stream) && l == nil; i += 7 {
		l = d.CheckContent(stream[i:min(i+7, len(stream))])
	}
	if l == nil || l.Guard != GuardRepeatedContent || l.Count != RepeatedContent || !strings.Contains(l.Message, "fix the failing") {
		t.Fatalf("loop %+v", l)
	}
}

func TestRepeatedContentNinePasses(t *testing.T) {
	d := New(Options{Heuristics: true})
	line := "| row | the same cell value | another cell |\n"
	if l := d.CheckContent(strings.Repeat(line, RepeatedContent-1)); l != nil {
		t.Fatalf("nine repeats tripped: %v", l)
	}
	// Short lines and code blocks do not count.
	if l := d.CheckContent(strings.Repeat("}\n", 50) + "```go\n" + strings.Repeat("\treturn fmt.Errorf(\"wrap: %w\", err)\n", 20) + "```\n"); l != nil {
		t.Fatalf("code tripped: %v", l)
	}
	if l := d.CheckContent(line); l == nil {
		t.Fatal("tenth repeat did not trip")
	}
}

func TestUnterminatedTextIsBounded(t *testing.T) {
	d := New(Options{Heuristics: true})
	chunk := strings.Repeat("x", 100)
	for range 1000 {
		d.CheckContent(chunk)
	}
	if n := len(d.contentTail); n > maxUnit {
		t.Fatalf("pending text grew to %d bytes", n)
	}
}

func TestIsInspection(t *testing.T) {
	yes := []string{"ls", "ls -la src", "git status", "git diff HEAD~1 -- a.go", "cat a.go | head -20",
		"cd src && ls", "git log --oneline -5; git status", "/bin/ls", "sed -n 1,20p a.go",
		"git branch -a", "go list ./...", "rg foo"}
	no := []string{"", "cd src", "rm -rf x", "go test ./...", "cat a > b", "echo $(rm x)", "sed -i s/a/b/ f",
		"git commit -m x", "git branch feature", "ls && make", "git remote add o url", "git"}
	for _, c := range yes {
		if !IsInspection(c) {
			t.Errorf("IsInspection(%q) = false", c)
		}
	}
	for _, c := range no {
		if IsInspection(c) {
			t.Errorf("IsInspection(%q) = true", c)
		}
	}
}

func TestDefaultClassify(t *testing.T) {
	for _, tt := range []struct {
		name, args string
		want       Class
	}{
		{"read_file", `{}`, ClassReadFile},
		{"glob", `{}`, ClassReadOnly},
		{"run_shell_command", shellArgs("git diff"), ClassInspect},
		{"run_shell_command", shellArgs("make"), ClassChange},
		{"run_shell_command", `not json`, ClassChange},
		{"write_file", `{}`, ClassChange},
		{"unknown_tool", `{}`, ClassChange},
	} {
		if got := DefaultClassify(tt.name, tt.args); got != tt.want {
			t.Errorf("DefaultClassify(%s, %s) = %v, want %v", tt.name, tt.args, got, tt.want)
		}
	}
}

func TestCustomClassify(t *testing.T) {
	d := New(Options{Heuristics: true, Classify: func(name, args string) Class {
		if name == "mcp_read" {
			return ClassReadFile
		}
		return ClassChange
	}})
	mustPass(t, d, "mcp_write", `{}`)
	for i := range ReadChurn - 1 {
		mustPass(t, d, "mcp_read", fmt.Sprintf(`{"n": %d}`, i))
	}
	mustTrip(t, d, "mcp_read", `{"n": 99}`, GuardReadChurn)
}

func BenchmarkCheck(b *testing.B) {
	const calls = 10000
	names := []string{"read_file", "grep_search", "edit", "run_shell_command", "glob"}
	args := make([]string, calls)
	for i := range args {
		switch i % 5 {
		case 3:
			args[i] = shellArgs(fmt.Sprintf("git diff -- file%d.go", i%17))
		default:
			args[i] = fmt.Sprintf(`{"file_path": "/work/src/pkg/file%d.go", "offset": %d, "limit": 200}`, i%23, i%7)
		}
	}
	for _, h := range []bool{false, true} {
		b.Run(fmt.Sprintf("heuristics=%v", h), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d := New(Options{Heuristics: h, MaxCallsPerTurn: calls})
				for i := range calls {
					if i%50 == 0 {
						d.StartRound()
					}
					d.CheckToolCall(names[i%5], args[i])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/calls, "ns/check")
		})
	}
	b.Run("content", func(b *testing.B) {
		text := strings.Repeat("The parser reads the next token and decides. Then it builds a node for it!\n", 20)
		b.SetBytes(int64(len(text)))
		d := New(Options{Heuristics: true})
		for b.Loop() {
			d.Reset()
			for i := 0; i < len(text); i += 16 {
				d.CheckContent(text[i:min(i+16, len(text))])
			}
		}
	})
}

func TestCanonicalForm(t *testing.T) {
	var c canon
	for _, tt := range []struct{ in, want string }{
		{``, `{}`},
		{`  `, `{}`},
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{" {\n \"b\" : [ 1 , {\"z\":null, \"y\" :true} ],\t\"a\":\"s p\\\"}\" } ", `{"a":"s p\"}","b":[1,{"y":true,"z":null}]}`},
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`[ {} , [ ] ]`, `[{},[]]`},
		{`-1.5e3`, `-1.5e3`},
		{`{"a": 1`, `{"a": 1`},
		{`{"k":{"b":{"d":1,"c":2},"a":0}}`, `{"k":{"a":0,"b":{"c":2,"d":1}}}`},
	} {
		if got := string(c.form(tt.in)); got != tt.want {
			t.Errorf("form(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func FuzzCanonicalForm(f *testing.F) {
	f.Add(`{"b":1,"a":[2,{"d":"x","c":null}]}`)
	f.Add(`[1, "a", {"x": {"y": []}}]`)
	f.Fuzz(func(t *testing.T, s string) {
		var c canon
		got := append([]byte(nil), c.form(s)...)
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		// The canonical form means the same, and is its own canonical form.
		var w any
		if err := json.Unmarshal(got, &w); err != nil || !reflect.DeepEqual(v, w) {
			t.Fatalf("form(%q) = %s: %v", s, got, err)
		}
		if again := c.form(string(got)); !bytes.Equal(again, got) {
			t.Fatalf("not idempotent: %s then %s", got, again)
		}
	})
}

func TestRetryGlobalRepetitionThreshold(t *testing.T) {
	// 3 + retry + 3 = 6 must not trip the threshold of 6.
	d := New(Options{Heuristics: true})
	grep := `{"pattern": "x"}`
	round := func(k int) {
		for i := range 3 {
			mustPass(t, d, "grep_search", grep)
			mustPass(t, d, "glob", fmt.Sprintf(`{"pattern": "%d-%d"}`, k, i))
		}
	}
	d.StartRound()
	round(0)
	d.Retry()
	round(1)
	d.StartRound()
	for i := range 2 {
		mustPass(t, d, "grep_search", grep)
		mustPass(t, d, "glob", fmt.Sprintf(`{"pattern": "2-%d"}`, i))
	}
	mustTrip(t, d, "grep_search", grep, GuardGlobalRepetition)
}

// ExtendTurnCap allows n more calls in this turn (the user said go on);
// the next user query starts from the configured cap again.
func TestExtendTurnCap(t *testing.T) {
	d := New(Options{MaxCallsPerTurn: 3})
	n := 0
	next := func() string { n++; return fmt.Sprintf(`{"n": %d}`, n) }
	for range 3 {
		mustPass(t, d, "edit", next())
	}
	mustTrip(t, d, "edit", next(), GuardTurnCap)
	mustTrip(t, d, "edit", next(), GuardTurnCap)
	d.ExtendTurnCap(3)
	d.StartRound()
	for range 3 {
		mustPass(t, d, "edit", next())
	}
	l := mustTrip(t, d, "edit", next(), GuardTurnCap)
	if !strings.Contains(l.Message, "more than 6 tool calls") {
		t.Fatalf("message %q", l.Message)
	}
	d.Reset()
	for range 3 {
		mustPass(t, d, "edit", next())
	}
	mustTrip(t, d, "edit", next(), GuardTurnCap)
}
