package schedule

import (
	"testing"
	"time"
)

func TestParseLoop(t *testing.T) {
	for _, tc := range []struct {
		args string
		want LoopCommand
		err  bool
	}{
		{args: "  ", want: LoopCommand{}},
		{args: "stop loop-2", want: LoopCommand{Stop: "loop-2"}},
		{args: "stop", err: true},
		{args: "5m check the deploy ", want: LoopCommand{Every: 5 * time.Minute, Prompt: "check the deploy"}},
		{args: "5m", err: true},
		{args: "soon do it", err: true},
	} {
		got, err := ParseLoop(tc.args)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseLoop(%q) = %+v, %v", tc.args, got, err)
		}
	}
}
