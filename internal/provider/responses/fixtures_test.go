package responses

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/provider/providertest"
)

var recordedCall = []llm.FunctionCall{{ID: "call_2FQdm3Br7Qb35YUBSkDR7kue", Name: "get_weather", Args: `{"city":"Beijing"}`}}

func TestRecordedGPT51ToolCall(t *testing.T) {
	body := providertest.LoadTypedEvents(t, "openai-responses-gpt-5.1-tool-call.chunks.txt")
	for _, piece := range providertest.PieceSizes {
		t.Run(fmt.Sprintf("piece%d", piece), func(t *testing.T) {
			s := newServer(t, reply{Body: body, Piece: piece})
			var seq []string
			var r result
			for ch, err := range s.client(Config{}).Stream(t.Context(), simpleRequest()) {
				if err != nil {
					t.Fatal(err)
				}
				r.Text += ch.Text
				r.Thought += ch.Thought
				r.Calls = append(r.Calls, ch.Calls...)
				for range ch.Calls {
					seq = append(seq, "call")
				}
				if ch.FinishReason != "" {
					seq = append(seq, "finish "+string(ch.FinishReason))
				}
				if ch.Usage != nil {
					seq = append(seq, "usage")
					r.Usage = ch.Usage
				}
			}
			if r.Text != "" || r.Thought != "" {
				t.Errorf("text %q thought %q", r.Text, r.Thought)
			}
			if !reflect.DeepEqual(r.Calls, recordedCall) {
				t.Errorf("calls = %#v\nwant %#v", r.Calls, recordedCall)
			}
			// The call is reported when its item is done, before the
			// completion; usage comes last.
			if want := []string{"call", "finish TOOL_CALLS", "usage"}; !reflect.DeepEqual(seq, want) {
				t.Errorf("sequence %v, want %v", seq, want)
			}
			if want := (llm.Usage{InputTokens: 45, OutputTokens: 25, TotalTokens: 70}); r.Usage == nil || *r.Usage != want {
				t.Errorf("usage = %+v, want %+v", r.Usage, want)
			}
		})
	}
}

// The same recording without the ...done events and without "event:"
// lines, as a minimal compatible server might send it: the call is
// assembled from its deltas and reported with the completion.
func TestRecordedGPT51ToolCallFromDeltasOnly(t *testing.T) {
	body := providertest.LoadTypedEvents(t, "openai-responses-gpt-5.1-tool-call.chunks.txt")
	var kept []string
	for _, ev := range strings.Split(body, "\n\n") {
		if ev == "" || strings.Contains(ev, "event: response.function_call_arguments.done") ||
			strings.Contains(ev, "event: response.output_item.done") {
			continue
		}
		_, data, _ := strings.Cut(ev, "\n")
		kept = append(kept, data)
	}
	s := newServer(t, reply{Body: strings.Join(kept, "\n\n") + "\n\n", Piece: 5})
	r := run(t, s.client(Config{}), simpleRequest())
	if r.Err != nil || !reflect.DeepEqual(r.Calls, recordedCall) || !reflect.DeepEqual(r.Finish, []llm.FinishReason{llm.FinishToolCalls}) {
		t.Fatalf("%+v", r)
	}
}
