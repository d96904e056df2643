package cli

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/hooks"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loopdetect"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/repair"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/sysprompt"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/tui"
	"github.com/plyhq/ply/internal/turn"
)

// runTUI builds the layers as runHeadless does and hands them to the
// interactive UI, which asks the user where headless would refuse.
//
// UNFINISHED: the construction shared with runHeadless (tools, policy,
// chat, client) should move into one builder; it is repeated here so as
// not to reshape runHeadless while it is being worked on.
func runTUI(ctx context.Context, cfg *config, sio IO, log *slog.Logger) int {
	roots := append([]string{cfg.workspace}, cfg.opts.IncludeDirs...)
	ws, err := tools.NewWorkspace(roots...)
	if err != nil {
		return fail(sio, headless.ExitInput, err.Error())
	}
	shell := tools.NewShell(ws)
	defer shell.Close()
	if err := setupSandbox(cfg.opts, ws, shell, sio.Stderr); err != nil {
		return fail(sio, headless.ExitInput, err.Error())
	}
	reg := tools.NewRegistry(
		tools.NewListDirectory(ws),
		tools.NewReadFile(ws),
		tools.NewGrep(ws),
		tools.NewGlob(ws),
		tools.NewEdit(ws),
		tools.NewWriteFile(ws),
		shell,
	)
	mode, err := permission.ParseMode(cfg.mode)
	if err != nil {
		return fail(sio, headless.ExitInput, err.Error())
	}
	var ruleSets []permission.RuleSet
	for _, f := range cfg.settingsFiles {
		p := f.Settings.Permissions
		ruleSets = append(ruleSets, permission.RuleSet{Source: f.Path, Allow: p.Allow, Ask: p.Ask, Deny: p.Deny})
	}
	policy, err := permission.New(permission.Config{
		Mode: mode, Workspace: ws, Settings: ruleSets,
		AllowedTools: cfg.opts.AllowedTools, ExcludeTools: cfg.opts.ExcludeTools, CoreTools: cfg.opts.CoreTools,
	})
	if err != nil {
		return fail(sio, headless.ExitInput, "bad permission rule: "+strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	for _, n := range reg.Names() {
		if !policy.Offered(n) {
			reg.Remove(n)
		}
	}
	sess, code, err := openSession(cfg, ws.Root(), log, sio.Stderr)
	if err != nil {
		return fail(sio, code, err.Error())
	}
	defer func() {
		if err := sess.w.Close(); err != nil {
			fmt.Fprintf(sio.Stderr, "ply: saving the session: %v\n", err)
		}
	}()

	provider := cfg.wire.newProvider(cfg.baseURL, cfg.apiKey, cfg.model, cfg.headers)
	system := sysprompt.Build(sysprompt.Env{
		Workspace: ws.Root(), Tools: reg.Names(),
		Override: cfg.opts.SystemPrompt, Append: strings.TrimSpace(cfg.opts.AppendSystemPrompt),
	})
	retry := chat.DefaultRetryPolicy
	if s := sio.Getenv("PLY_RETRY_DELAY_SCALE"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 {
			return fail(sio, headless.ExitConfig, fmt.Sprintf("PLY_RETRY_DELAY_SCALE=%q is not a non-negative number", s))
		}
		retry = retry.Scale(f)
	}
	ch := chat.New(provider, chat.Config{
		Model: cfg.model, System: system, Tools: reg.Decls(), Retry: retry,
		ContextWindow:   cmp.Or(cfg.contextWindow, defaultContextWindow),
		MaxOutputTokens: cfg.maxOutput,
		Repair: func(h []llm.Message) []llm.Message {
			out, rep := repair.Repair(h)
			if rep.Changed() {
				log.Warn("repaired history before sending", "report", rep.String())
			}
			return out
		},
		Logger: log,
	}, sess.history)
	ch.OnAppend(sess.w.Append)

	ui := tui.New(tui.Config{
		Model: cfg.model, PermissionMode: cfg.mode, Version: Version,
		NoColor: sio.Getenv("NO_COLOR") != "",
		Clear: func() {
			ch.SetHistory(nil)
			// On resume the transcript then starts from the empty history too.
			sess.w.AppendCompaction(nil)
		},
		Checkpoint: func() {
			if err := sess.w.Sync(); err != nil {
				log.Error("saving the session", "err", err)
			}
		},
		OnCancel: func(reason string) { sess.w.AppendCancelled(reason) },
		In:       sio.Stdin, Out: sio.Stdout, Stderr: sio.Stderr,
	})
	// Hooks speak through the UI: a write to the terminal behind Bubble
	// Tea's back would garble the screen.
	hookRunner, err := newHooks(cfg, ws.Root(), sess, noticeWriter{ui})
	if err != nil {
		return fail(sio, headless.ExitConfig, err.Error())
	}
	defer func() {
		ectx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		hookRunner.SessionEnd(ectx, "other")
	}()
	sched := scheduler.New(reg,
		scheduler.WithPolicy(policy),
		scheduler.WithApprover(ui),
		scheduler.MaxConcurrencyFromEnv(),
		scheduler.WithHooks(hooks.ForScheduler(hookRunner)),
		scheduler.WithOnUpdate(func(c *scheduler.Call) {
			if st := c.State(); st.Terminal() {
				sess.w.AppendToolState(session.ToolState{Time: time.Now(), CallID: c.CallID, Name: c.Name,
					State: string(st), ErrorType: c.ErrorType()})
			}
			ui.OnUpdate(c)
		}),
	)
	cl := client.New(ch, client.Options{
		Loop:        guard{loopdetect.New(loopdetect.Options{})},
		NextSpeaker: true,
		Stop:        hookRunner.Stop,
	})
	log.Info("interactive run", "session", sess.id, "model", cfg.model, "mode", cfg.mode)
	// UNFINISHED: SessionStart and UserPromptSubmit hooks per typed prompt.
	return ui.Run(ctx, cl, tuiRunner{&runner{sched: sched, chat: ch}})
}

// tuiRunner gives the UI the responses of headless's runner.
type tuiRunner struct{ r *runner }

func (t tuiRunner) RunTools(ctx context.Context, calls []*turn.ToolCallRequest) ([]llm.FunctionResponse, error) {
	outs, err := t.r.RunTools(ctx, calls)
	resps := make([]llm.FunctionResponse, len(outs))
	for i, o := range outs {
		resps[i] = o.Response
	}
	return resps, err
}

// noticeWriter turns writes into UI notices.
type noticeWriter struct{ ui *tui.UI }

func (w noticeWriter) Write(p []byte) (int, error) {
	if s := strings.TrimSpace(string(p)); s != "" {
		w.ui.Notice(s)
	}
	return len(p), nil
}
