package loop

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/turn"
)

// telLog is a Telemetry that writes what it is told as one line.
type telLog struct{ log []string }

func (t *telLog) Interaction(ctx context.Context, in Input) (context.Context, Interaction) {
	t.log = append(t.log, "start")
	return ctx, t
}
func (t *telLog) RoundStarted(ctx context.Context) context.Context {
	t.log = append(t.log, "round")
	return ctx
}
func (t *telLog) Retried(r turn.Retry)     { t.log = append(t.log, "retry "+r.Class) }
func (t *telLog) Finished(f turn.Finished) { t.log = append(t.log, "finished") }
func (t *telLog) ToolsRan(start time.Time, calls []*turn.ToolCallRequest, outs []Outcome, err error) {
	t.log = append(t.log, "tools")
}
func (t *telLog) RoundEnded() { t.log = append(t.log, "/round") }
func (t *telLog) Ended(r Result) {
	t.log = append(t.log, "end")
}

type telRecorder struct {
	recorder
	tel Telemetry
}

func (r *telRecorder) Telemetry() Telemetry { return r.tel }

// Every round telemetry sees start ends, and the interaction ends once,
// however the loop ends.
func TestTelemetrySeesEveryRoundEnd(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for name, c := range map[string]struct {
		ctx     context.Context
		replies [][]turn.Event
		want    string
	}{
		"done": {context.Background(), [][]turn.Event{
			{turn.Retry{Class: "server"}, call("a"), turn.Finished{Reason: llm.FinishToolCalls}},
			{turn.Finished{Reason: llm.FinishStop}}},
			"start round retry server finished tools /round round finished /round end"},
		"model error": {context.Background(), [][]turn.Event{{turn.Error{Err: errors.New("boom")}}},
			"start round /round end"},
		"cancelled": {cancelled, [][]turn.Event{{turn.UserCancelled{}}}, "start round /round end"},
		"loop guard": {context.Background(), [][]turn.Event{{turn.LoopDetected{Guard: "g", Message: "m"}}},
			"start round /round end"},
	} {
		tel := &telLog{}
		rec := &telRecorder{tel: tel}
		Run(c.ctx, Config{Rounds: &script{replies: c.replies}, Tools: &tools{}, Recorder: rec},
			Input{Parts: []llm.Part{{Text: "hi"}}, Type: client.UserQuery})
		if got := strings.Join(tel.log, " "); got != c.want {
			t.Errorf("%s: telemetry saw %q, want %q", name, got, c.want)
		}
	}
}

// A loop started by another loop's tools (a subagent, with no recorder of
// its own) reports to its parent's telemetry; a loop without either sees
// none.
func TestSubagentLoopUsesItsParentsTelemetry(t *testing.T) {
	tel := &telLog{}
	tl := &tools{run: func(ctx context.Context, _ []*turn.ToolCallRequest) {
		Run(ctx, Config{Rounds: &script{}, Tools: &tools{}}, Input{Parts: []llm.Part{{Text: "sub"}}, Type: client.UserQuery})
	}}
	Run(context.Background(), Config{Rounds: &script{replies: [][]turn.Event{{call("a"), turn.Finished{Reason: llm.FinishToolCalls}}}},
		Tools: tl, Recorder: &telRecorder{tel: tel}}, Input{Parts: []llm.Part{{Text: "hi"}}, Type: client.UserQuery})
	if got, want := strings.Count(strings.Join(tel.log, " "), "start"), 2; got != want {
		t.Errorf("%d interactions seen (%q), want %d: the subagent's is missing", got, tel.log, want)
	}
	plain := &recorder{}
	if res := Run(context.Background(), Config{Rounds: &script{}, Tools: &tools{}, Recorder: plain},
		Input{Parts: []llm.Part{{Text: "hi"}}, Type: client.UserQuery}); res.Stop != Done {
		t.Errorf("without telemetry: %+v", res)
	}
}
