package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/tools"
)

// The tools' names, as Qwen Code names them.
const (
	CronCreateName = "cron_create"
	CronListName   = "cron_list"
	CronDeleteName = "cron_delete"
	WakeupName     = "loop_wakeup"
)

// Wake-up delay bounds.
const (
	minWakeup = 5 * time.Second
	maxWakeup = 24 * time.Hour
)

// maxPrompt bounds a scheduled prompt.
const maxPrompt = 10_000

// Tools returns the model's tools over s: schedule a prompt by cron
// expression, list and delete schedules, and wake itself up once.
func Tools(s *Schedules) []tools.Tool {
	return []tools.Tool{cronCreate{s}, cronList{s}, cronDelete{s}, wakeup{s}}
}

const sessionOnly = "Session-only: it stops when the session ends."

type cronCreate struct{ s *Schedules }

func (cronCreate) Name() string { return CronCreateName }
func (cronCreate) Description() string {
	return "Schedule a prompt to be sent to you at future times, recurring or once. Uses a standard 5-field cron expression in the " +
		"user's local time: minute hour day-of-month month day-of-week (\"*/5 * * * *\" every 5 minutes, \"0 9 * * 1-5\" 9am on " +
		"weekdays, \"30 14 28 2 *\" 2:30pm on 28 February). For a one-shot reminder pin the minute, hour, day and month and set " +
		"recurring false. A firing arrives when you are idle or after your current work; one that comes while the previous " +
		"firing's work still runs is skipped. " + sessionOnly
}
func (cronCreate) Kind() tools.Kind { return tools.KindOther }
func (cronCreate) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"cron":{"type":"string","description":"5-field cron expression in local time: \"M H DoM Mon DoW\"."},` +
		`"prompt":{"type":"string","minLength":1,"description":"The prompt to send at each firing."},` +
		`"recurring":{"type":"boolean","description":"true (default): fire at every match until deleted. false: fire once, then delete."}` +
		`},"required":["cron","prompt"],"additionalProperties":false}`)
}

func (t cronCreate) Execute(_ context.Context, args json.RawMessage, _ tools.Output) (tools.Result, error) {
	var p struct {
		Cron      string `json:"cron"`
		Prompt    string `json:"prompt"`
		Recurring *bool  `json:"recurring"`
	}
	if err := json.Unmarshal(args, &p); err != nil {
		return tools.Errorf("INVALID_TOOL_PARAMS", "%s: the arguments do not decode: %v", CronCreateName, err), nil
	}
	prompt := strings.TrimSpace(p.Prompt)
	if prompt == "" || len(prompt) > maxPrompt {
		return tools.Errorf("INVALID_TOOL_PARAMS", "%s: the prompt must be 1 to %d bytes", CronCreateName, maxPrompt), nil
	}
	recurring := p.Recurring == nil || *p.Recurring
	j, err := t.s.Cron(p.Cron, prompt, recurring)
	if err != nil {
		return tools.Errorf("INVALID_TOOL_PARAMS", "%s: %v", CronCreateName, err), nil
	}
	what := "recurring job"
	if !recurring {
		what = "one-shot job"
	}
	return tools.Result{
		Output: fmt.Sprintf("Scheduled %s %s (%s), next at %s. %s Use %s to cancel it.",
			what, j.ID, j.Spec, j.Next.Format(time.DateTime), sessionOnly, CronDeleteName),
		Display: fmt.Sprintf("scheduled %s (%s)", j.ID, j.Spec),
	}, nil
}

type cronList struct{ s *Schedules }

func (cronList) Name() string { return CronListName }
func (cronList) Description() string {
	return "List this session's schedules (cron jobs, /loop schedules, pending wake-ups) with their ids, when they fire next and their prompts."
}
func (cronList) Kind() tools.Kind                     { return tools.KindRead }
func (cronList) ConcurrencySafe(json.RawMessage) bool { return true }
func (cronList) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
}

func (t cronList) Execute(context.Context, json.RawMessage, tools.Output) (tools.Result, error) {
	return tools.Result{Output: ListText(t.s.List())}, nil
}

// ListText describes jobs, one a line.
func ListText(jobs []Job) string {
	if len(jobs) == 0 {
		return "No schedules."
	}
	var b strings.Builder
	for _, j := range jobs {
		fmt.Fprintf(&b, "%s  %s  next %s  fired %d, skipped %d", j.ID, j.Spec, j.Next.Format(time.DateTime), j.Fired, j.Skipped)
		if j.Running {
			b.WriteString(", running")
		}
		fmt.Fprintf(&b, "\n  %s\n", firstLine(j.Prompt))
	}
	return strings.TrimRight(b.String(), "\n")
}

func firstLine(s string) string {
	s, _, cut := strings.Cut(s, "\n")
	if len(s) > 120 {
		s, cut = s[:120], true
	}
	if cut {
		s += "…"
	}
	return s
}

type cronDelete struct{ s *Schedules }

func (cronDelete) Name() string { return CronDeleteName }
func (cronDelete) Description() string {
	return "Cancel a schedule by its id (from " + CronCreateName + ", " + WakeupName + ", /loop or " + CronListName + ")."
}
func (cronDelete) Kind() tools.Kind { return tools.KindThink }
func (cronDelete) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","description":"The schedule's id."}},"required":["id"],"additionalProperties":false}`)
}

func (t cronDelete) Execute(_ context.Context, args json.RawMessage, _ tools.Output) (tools.Result, error) {
	var p struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(args, &p); err != nil {
		return tools.Errorf("INVALID_TOOL_PARAMS", "%s: the arguments do not decode: %v", CronDeleteName, err), nil
	}
	if !t.s.Delete(strings.TrimSpace(p.ID)) {
		return tools.Errorf("NOT_FOUND", "%s: no schedule %q; %s lists them", CronDeleteName, p.ID, CronListName), nil
	}
	return tools.Result{Output: "Cancelled " + p.ID + "."}, nil
}

type wakeup struct{ s *Schedules }

func (wakeup) Name() string { return WakeupName }
func (wakeup) Description() string {
	return "Schedule one wake-up: after delaySeconds, the prompt is sent to you again, so you can check on something that " +
		"nothing else will report (a remote build, a deploy). Once only; call it again to keep polling, omit it to stop. When a " +
		"background subagent you started will notify you on its own, do not poll it. " + sessionOnly
}
func (wakeup) Kind() tools.Kind { return tools.KindThink }
func (wakeup) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"delaySeconds":{"type":"number","description":"Seconds from now, 5 to 86400."},` +
		`"prompt":{"type":"string","minLength":1,"description":"The prompt to send when it fires."},` +
		`"reason":{"type":"string","description":"One short sentence on why this delay; shown to the user."}` +
		`},"required":["delaySeconds","prompt"],"additionalProperties":false}`)
}

func (t wakeup) Execute(_ context.Context, args json.RawMessage, _ tools.Output) (tools.Result, error) {
	var p struct {
		Delay  float64 `json:"delaySeconds"`
		Prompt string  `json:"prompt"`
		Reason string  `json:"reason"`
	}
	if err := json.Unmarshal(args, &p); err != nil {
		return tools.Errorf("INVALID_TOOL_PARAMS", "%s: the arguments do not decode: %v", WakeupName, err), nil
	}
	prompt := strings.TrimSpace(p.Prompt)
	if prompt == "" || len(prompt) > maxPrompt {
		return tools.Errorf("INVALID_TOOL_PARAMS", "%s: the prompt must be 1 to %d bytes", WakeupName, maxPrompt), nil
	}
	if math.IsNaN(p.Delay) {
		p.Delay = 0
	}
	d := min(max(time.Duration(p.Delay*float64(time.Second)), minWakeup), maxWakeup)
	if p.Delay > maxWakeup.Seconds() {
		d = maxWakeup
	}
	j, err := t.s.After(d, prompt)
	if err != nil {
		return tools.Errorf("SCHEDULE_FAILED", "%s: %v", WakeupName, err), nil
	}
	disp := fmt.Sprintf("wake-up %s in %s", j.ID, d)
	if r := strings.TrimSpace(p.Reason); r != "" {
		disp += ": " + r
	}
	return tools.Result{Output: fmt.Sprintf("Wake-up %s set for %s (in %s). %s", j.ID, j.Next.Format(time.DateTime), d, sessionOnly), Display: disp}, nil
}
