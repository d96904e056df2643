package telemetry

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/modelinfo"
	"github.com/plyhq/ply/internal/turn"
)

// Span names.
const (
	SpanInteraction = "ply.interaction"
	SpanRound       = "ply.round"
	SpanTool        = "ply.tool"
)

// instruments are the metrics ply records.
type instruments struct {
	tokens   metric.Int64Counter     // ply.token.usage {type, model}
	cost     metric.Float64Counter   // ply.cost.usage {model}, USD
	rounds   metric.Int64Counter     // ply.rounds {model}
	tools    metric.Float64Histogram // ply.tool.duration {tool, outcome}, seconds
	refusals metric.Int64Counter     // ply.refusals {kind, tool}
	retries  metric.Int64Counter     // ply.retries {class}
}

func newInstruments(m metric.Meter) (instruments, error) {
	var in instruments
	var errs [6]error
	in.tokens, errs[0] = m.Int64Counter("ply.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens sent to and received from the model, by type (input, output, and cached among input)."))
	in.cost, errs[1] = m.Float64Counter("ply.cost.usage", metric.WithUnit("USD"),
		metric.WithDescription("The model's usage priced at the model's known or configured prices."))
	in.rounds, errs[2] = m.Int64Counter("ply.rounds", metric.WithUnit("{round}"),
		metric.WithDescription("Model round-trips."))
	in.tools, errs[3] = m.Float64Histogram("ply.tool.duration", metric.WithUnit("s"),
		metric.WithDescription("Tool call durations, by tool and outcome."))
	in.refusals, errs[4] = m.Int64Counter("ply.refusals", metric.WithUnit("{refusal}"),
		metric.WithDescription("Tool calls refused by the permission policy (kind tool) and prompts refused by a hook (kind prompt)."))
	in.retries, errs[5] = m.Int64Counter("ply.retries", metric.WithUnit("{retry}"),
		metric.WithDescription("Model requests retried, by failure class."))
	return in, errors.Join(errs[:]...)
}

// SessionInfo is what telemetry reads of a session: its id, its current
// model, and a model's facts (its prices).
type SessionInfo interface {
	ID() string
	Model() string
	ModelFacts(model string) (modelinfo.Info, bool)
}

// Session returns the loop.Telemetry of session s; nil when p is nil
// (telemetry off), so that a loop sees none.
func (p *Provider) Session(s SessionInfo) loop.Telemetry {
	if p == nil {
		return nil
	}
	return &sessionTel{p: p, s: s}
}

type sessionTel struct {
	p *Provider
	s SessionInfo
}

func (t *sessionTel) Interaction(ctx context.Context, in loop.Input) (context.Context, loop.Interaction) {
	attrs := []attribute.KeyValue{
		attribute.String("session.id", t.s.ID()),
		attribute.String("gen_ai.request.model", cmp.Or(in.Model, t.s.Model())),
		attribute.String("ply.prompt.type", in.Type.String()),
	}
	if t.p.logPrompts {
		attrs = append(attrs, attribute.String("ply.prompt", t.p.redact(promptText(in))))
	}
	ctx, span := t.p.tracer.Start(ctx, SpanInteraction, trace.WithAttributes(attrs...))
	return ctx, &interaction{t: t, span: span, own: in.Model}
}

// promptText is the text a loop starts from.
func promptText(in loop.Input) string {
	var b strings.Builder
	for _, r := range in.Rounds {
		b.WriteString(r.Text)
		b.WriteString("\n")
	}
	for _, p := range in.Parts {
		if p.Response == nil {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// interaction is one loop's trace.
type interaction struct {
	t      *sessionTel
	span   trace.Span
	round  trace.Span
	model  string
	own    string // the loop's own model (a subagent's), "" for the session's
	rounds int
}

func (in *interaction) RoundStarted(ctx context.Context) context.Context {
	in.rounds++
	in.model = cmp.Or(in.own, in.t.s.Model())
	ctx, in.round = in.t.p.tracer.Start(ctx, SpanRound, trace.WithAttributes(
		attribute.Int("ply.round", in.rounds), attribute.String("gen_ai.request.model", in.model)))
	in.t.p.inst.rounds.Add(ctx, 1, metric.WithAttributes(attribute.String("model", in.model)))
	return ctx
}

func (in *interaction) Retried(r turn.Retry) {
	class := r.Class
	if class == "" {
		class = "error"
	}
	in.t.p.inst.retries.Add(context.Background(), 1, metric.WithAttributes(attribute.String("class", class)))
	if in.round != nil {
		in.round.AddEvent("retry", trace.WithAttributes(attribute.String("class", class), attribute.Int("attempt", r.Attempt)))
	}
}

func (in *interaction) Finished(f turn.Finished) {
	if in.round != nil && f.Reason != "" {
		in.round.SetAttributes(attribute.String("gen_ai.response.finish_reason", string(f.Reason)))
	}
	if f.Usage == nil {
		return
	}
	in.usage(f.Usage)
}

// usage records one reply's tokens and, when the model's prices are
// known, its cost, priced as the footer and /stats price it.
func (in *interaction) usage(u *llm.Usage) {
	ctx := context.Background()
	model := attribute.String("model", in.model)
	tok := in.t.p.inst.tokens
	tok.Add(ctx, int64(u.InputTokens), metric.WithAttributes(model, attribute.String("type", "input")))
	tok.Add(ctx, int64(u.OutputTokens), metric.WithAttributes(model, attribute.String("type", "output")))
	if u.CachedTokens > 0 {
		tok.Add(ctx, int64(u.CachedTokens), metric.WithAttributes(model, attribute.String("type", "cached")))
	}
	attrs := []attribute.KeyValue{
		attribute.Int("gen_ai.usage.input_tokens", u.InputTokens),
		attribute.Int("gen_ai.usage.output_tokens", u.OutputTokens),
		attribute.Int("gen_ai.usage.cached_tokens", u.CachedTokens),
	}
	if info, _ := in.t.s.ModelFacts(in.model); !info.Prices.Zero() {
		c := info.Prices.Cost(u.InputTokens, u.CachedTokens, u.OutputTokens)
		in.t.p.inst.cost.Add(ctx, c, metric.WithAttributes(model))
		attrs = append(attrs, attribute.Float64("ply.cost_usd", c))
	}
	if in.round != nil {
		in.round.SetAttributes(attrs...)
	}
}

// Tool call outcomes (ply.tool.outcome and the duration's outcome).
const (
	outcomeOK     = "ok"
	outcomeError  = "error"
	outcomeDenied = "denied"
	outcomeNotRun = "not_run"
)

func (in *interaction) ToolsRan(start time.Time, calls []*turn.ToolCallRequest, outs []loop.Outcome, err error) {
	end := time.Now()
	ctx := context.Background()
	if in.round != nil {
		ctx = trace.ContextWithSpan(ctx, in.round)
	}
	for i, c := range calls {
		outcome := outcomeNotRun
		var o *loop.Outcome
		if i < len(outs) {
			o = &outs[i]
			switch {
			case o.Denied:
				outcome = outcomeDenied
			case o.Response.IsError:
				outcome = outcomeError
			default:
				outcome = outcomeOK
			}
		}
		s, e := start, end
		if o != nil && !o.Start.IsZero() && !o.End.IsZero() {
			s, e = o.Start, o.End
		}
		attrs := []attribute.KeyValue{
			attribute.String("gen_ai.tool.name", c.Name),
			attribute.String("gen_ai.tool.call.id", c.CallID),
			attribute.String("ply.tool.outcome", outcome),
		}
		if in.t.p.logPrompts {
			attrs = append(attrs, attribute.String("ply.tool.arguments", in.t.p.redact(c.Args)))
			if o != nil {
				attrs = append(attrs, attribute.String("ply.tool.result", in.t.p.redact(o.Response.Output)))
			}
		}
		_, span := in.t.p.tracer.Start(ctx, SpanTool, trace.WithTimestamp(s), trace.WithAttributes(attrs...))
		if outcome == outcomeError || outcome == outcomeDenied {
			span.SetStatus(codes.Error, outcome)
		}
		span.End(trace.WithTimestamp(e))
		tool := attribute.String("tool", c.Name)
		if outcome != outcomeNotRun {
			in.t.p.inst.tools.Record(ctx, e.Sub(s).Seconds(), metric.WithAttributes(tool, attribute.String("outcome", outcome)))
		}
		if outcome == outcomeDenied {
			in.t.p.inst.refusals.Add(ctx, 1, metric.WithAttributes(attribute.String("kind", "tool"), tool))
		}
	}
	if err != nil && in.round != nil {
		in.round.RecordError(err)
	}
}

func (in *interaction) RoundEnded() {
	if in.round != nil {
		in.round.End()
		in.round = nil
	}
}

func (in *interaction) Ended(r loop.Result) {
	in.RoundEnded()
	in.span.SetAttributes(
		attribute.String("ply.stop", stopName(r.Stop)),
		attribute.Int("ply.turns", r.Turns),
		attribute.Int("ply.tool_calls", r.ToolCalls),
	)
	var refused *client.PromptRefused
	if errors.As(r.Err, &refused) {
		in.t.p.inst.refusals.Add(context.Background(), 1, metric.WithAttributes(attribute.String("kind", "prompt")))
	}
	if r.Failed() {
		msg := r.Message
		if msg == "" {
			msg = stopName(r.Stop)
		}
		in.span.SetStatus(codes.Error, msg)
	}
	in.span.End()
}

// stopName names a loop's stop as ply.stop says it.
func stopName(s loop.Stop) string {
	switch s {
	case loop.Done:
		return "done"
	case loop.Cancelled:
		return "cancelled"
	case loop.WallTime:
		return "max_wall_time"
	case loop.MaxTurns:
		return "max_turns"
	case loop.MaxToolCalls:
		return "max_tool_calls"
	case loop.TurnCapReached:
		return "turn_cap"
	case loop.Loop:
		return "loop_detected"
	case loop.ModelError:
		return "model_error"
	case loop.ToolError:
		return "tool_error"
	case loop.Structured:
		return "structured_output"
	case loop.NoStructuredOutput:
		return "no_structured_output"
	case loop.Unsaved:
		return "unsaved"
	}
	return "unknown"
}
