package headless

import (
	"github.com/plyhq/ply/internal/turn"
)

// partials emits stream_event messages (--include-partial-messages): the
// round's deltas as they arrive, framed the way Anthropic's stream events
// are (message_start, content_block_start/delta/stop, message_delta,
// message_stop), which is what the SDKs expect inside stream_event.
type partials struct {
	p       *printer
	on      bool
	started bool
	block   string // kind of the open block: "text", "thinking", ""
	index   int
}

func (s *partials) emit(ev map[string]any) {
	s.p.emit(map[string]any{
		"type": "stream_event", "uuid": newUUID(), "session_id": s.p.cfg.SessionID,
		"parent_tool_use_id": nil, "event": ev,
	})
}

func (s *partials) start() {
	if s.started {
		return
	}
	s.started = true
	s.emit(map[string]any{"type": "message_start", "message": map[string]any{
		"id": newUUID(), "type": "message", "role": "assistant", "model": s.p.cfg.Model, "content": []any{},
	}})
}

// open makes sure a block of kind is open, closing another kind first.
func (s *partials) open(kind string, start map[string]any) {
	if s.block == kind && kind != "tool_use" {
		return
	}
	s.close()
	s.block = kind
	s.emit(map[string]any{"type": "content_block_start", "index": s.index, "content_block": start})
}

func (s *partials) close() {
	if s.block == "" {
		return
	}
	s.emit(map[string]any{"type": "content_block_stop", "index": s.index})
	s.block = ""
	s.index++
}

// event passes one turn event on as stream events.
func (s *partials) event(ev turn.Event) {
	if !s.on {
		return
	}
	switch e := ev.(type) {
	case turn.Content:
		s.start()
		s.open("text", map[string]any{"type": "text", "text": ""})
		s.emit(map[string]any{"type": "content_block_delta", "index": s.index,
			"delta": map[string]any{"type": "text_delta", "text": e.Text}})
	case turn.Thought:
		if e.Text == "" {
			return
		}
		s.start()
		s.open("thinking", map[string]any{"type": "thinking", "thinking": ""})
		s.emit(map[string]any{"type": "content_block_delta", "index": s.index,
			"delta": map[string]any{"type": "thinking_delta", "thinking": e.Text}})
	case *turn.ToolCallRequest:
		s.start()
		s.open("tool_use", map[string]any{"type": "tool_use", "id": e.CallID, "name": e.Name, "input": map[string]any{}})
		s.emit(map[string]any{"type": "content_block_delta", "index": s.index,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(ToolInput(e.Args))}})
		s.close()
	case turn.Retry:
		// The attempt's deltas are void; the next attempt starts anew.
		s.close()
		if s.started {
			s.emit(map[string]any{"type": "message_stop"})
		}
		*s = partials{p: s.p, on: s.on}
	case turn.Finished:
		s.start()
		s.close()
		reason := "end_turn"
		switch e.Reason {
		case "TOOL_CALLS":
			reason = "tool_use"
		case "MAX_TOKENS":
			reason = "max_tokens"
		}
		s.emit(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": reason},
			"usage": UsageOf(e.Usage)})
		s.emit(map[string]any{"type": "message_stop"})
		*s = partials{p: s.p, on: s.on}
	}
}
