package schedule

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func run(t *testing.T, s *Schedules, name, args string) (string, bool) {
	t.Helper()
	for _, tool := range Tools(s) {
		if tool.Name() == name {
			var v any
			if err := json.Unmarshal(tool.Schema(), &v); err != nil {
				t.Fatalf("%s schema: %v", name, err)
			}
			res, err := tool.Execute(context.Background(), json.RawMessage(args), nil)
			if err != nil {
				t.Fatal(err)
			}
			return res.Output, res.IsError
		}
	}
	t.Fatalf("no tool %s", name)
	return "", false
}

func TestScheduleTools(t *testing.T) {
	s := New(&rounds{c: make(chan struct{}, 16)})
	defer s.Close()
	out, isErr := run(t, s, CronCreateName, `{"cron":"0 9 * * 1-5","prompt":"standup notes"}`)
	if isErr || !strings.Contains(out, "cron-1") || !strings.Contains(out, "recurring") {
		t.Fatalf("%s", out)
	}
	if out, isErr := run(t, s, CronCreateName, `{"cron":"0 9 * *","prompt":"x"}`); !isErr || !strings.Contains(out, "5 fields") {
		t.Fatalf("bad cron: %s", out)
	}
	out, isErr = run(t, s, WakeupName, `{"delaySeconds":1,"prompt":"check CI","reason":"CI takes a while"}`)
	if isErr || !strings.Contains(out, "wakeup-2") || !strings.Contains(out, "5s") {
		t.Fatalf("wake-up (clamped to 5s): %s", out)
	}
	out, _ = run(t, s, CronListName, `{}`)
	if !strings.Contains(out, "cron-1") || !strings.Contains(out, "standup notes") || !strings.Contains(out, "wakeup-2") {
		t.Fatalf("list: %s", out)
	}
	if out, isErr := run(t, s, CronDeleteName, `{"id":"cron-1"}`); isErr {
		t.Fatal(out)
	}
	if _, isErr := run(t, s, CronDeleteName, `{"id":"cron-1"}`); !isErr {
		t.Fatal("deleted twice")
	}
}
