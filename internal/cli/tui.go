package cli

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/headless"
	"github.com/plyhq/ply/internal/ide"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tui"
)

// runTUI builds the layers as runHeadless does and hands them to the
// interactive UI, which asks the user where headless would refuse.
func runTUI(ctx context.Context, cfg *config, sio IO, log *slog.Logger) int {
	// Hooks speak through the UI: a write to the terminal behind Bubble
	// Tea's back would garble the screen. The UI exists only once the
	// chat does, so notices go through a sink it is plugged into.
	notices := &noticeWriter{}
	ccfg := cfg.coreConfig(sio)
	// The input is usable at once; MCP servers' tools join as each
	// connects, and the footer says which are still connecting.
	ccfg.MCPInBackground = true
	c, code, err := core.New(ctx, ccfg, notices, log)
	if err != nil {
		return fail(sio, code, err.Error())
	}
	defer c.Close()
	// The editor ply runs in, when it has a companion extension: its
	// context goes with each prompt, its diff view answers approvals. The
	// connection is made before the UI starts, so that what came of it is
	// said with the start's notice (it takes milliseconds where there is
	// an extension, less where there is none; a server that does not
	// answer is given two seconds).
	ideNotice := ""
	if cfg.settings.IDE.On() {
		env := ide.SystemEnv(workingDir(sio, c))
		env.Getenv = sio.Getenv
		c.AttachIDE(ide.New(ide.Options{Env: env, Logger: log, ClientVersion: Version, ConnectTimeout: 2 * time.Second}))
		ideNotice = connectIDE(ctx, c)
	}
	first, firstType := c.First()
	tcfg := tui.Config{
		Model: cfg.model, PermissionMode: cfg.mode, Version: Version,
		NoColor: sio.Getenv("NO_COLOR") != "",
		Notice:  strings.TrimSpace(cfg.startNotice + "\n" + ideNotice),
		Root:    c.Workspace().Root(),
		History: c.History(),
		First:   first, FirstType: firstType,
		// The session is probed for what the commands reach: its
		// controls, rules, sessions, tools, skills, MCP prompts, …
		Session:  c,
		Recorder: c.Recorder(),
		// Reaching the per-turn cap asks the user whether to go on.
		TurnCap: c.Loops(),
		// Background work: notifications, teammates' messages.
		Inbox: c.Inbox(),
		Extra: tui.Extra{Theme: cfg.settings.UI.Theme},
		In:    sio.Stdin, Out: sio.Stdout, Stderr: sio.Stderr,
	}
	cmds, errs := c.CustomCommands()
	tcfg.Extra.Custom = cmds
	for _, e := range errs {
		log.Warn("custom command skipped", "err", e)
		tcfg.Notice = strings.TrimSpace(tcfg.Notice + "\n" + e.Error() + " (skipped)")
	}
	if cfg.opts.PromptInteractive != "" {
		// -i: the prompt shows and goes out as if typed (the UI expands
		// its @paths), after an interrupted turn of a resumed session.
		tcfg.FirstPrompt = cfg.opts.PromptInteractive
	}
	ui := tui.New(tcfg)
	notices.set(ui)
	sched := scheduler.New(c.Registry(), append(c.SchedulerOptions(),
		scheduler.WithApprover(c.Approver(ui)),
		scheduler.WithLiveOutput(ui.LiveOutput),
		scheduler.WithOnUpdate(func(call *scheduler.Call) {
			c.RecordToolState(call)
			ui.OnUpdate(call)
		}),
	)...)
	// Subagents ask through the same dialog; their progress lines would
	// garble the screen, so they go to the agent card's live output.
	c.SetSubagentApprover(ui)
	c.SetQuestionAsker(ui) // ask_user_question's dialog
	c.SetSubagentLoop(nestedLoop(headless.FormatText, io.Discard, io.Discard))
	log.Info("interactive run", "session", c.ID(), "model", cfg.model, "mode", cfg.mode)
	code = ui.Run(ctx, c.Client(), c.Runner(sched, true))
	endTUI(cfg, c, ui.Summary(), sio.Stdout, log)
	return unsavedCode(c, code)
}

// connectIDE connects to the editor's companion and returns what to say
// of it: nothing when ply runs in no editor with one.
func connectIDE(ctx context.Context, c *core.Session) string {
	st := c.SetIDE(ctx, true)
	var lines []string
	for _, n := range st.Notices {
		lines = append(lines, "ply: warning: "+n)
	}
	switch {
	case st.Connected && st.Diffing:
		lines = append(lines, "IDE connected: "+cmp.Or(st.Name, "the editor")+" (file changes to approve also open in its diff view; /ide for more)")
	case st.Connected:
		lines = append(lines, "IDE connected: "+cmp.Or(st.Name, "the editor")+" (/ide for more)")
	case st.Found:
		lines = append(lines, "IDE not connected: "+st.Detail)
	}
	return strings.Join(lines, "\n")
}

// workingDir is the directory ply was started in, which must lie in the
// editor's workspace.
func workingDir(sio IO, c *core.Session) string {
	if sio.Cwd != "" {
		return sio.Cwd
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return c.Workspace().Root()
}

// noticeWriter turns writes into UI notices once a UI is plugged in;
// before that (construction) there is nothing to say them on, and they go
// to the log.
type noticeWriter struct {
	mu sync.Mutex
	ui *tui.UI
}

func (w *noticeWriter) set(ui *tui.UI) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ui = ui
}

func (w *noticeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	ui := w.ui
	w.mu.Unlock()
	if s := strings.TrimSpace(string(p)); s != "" {
		if ui != nil {
			ui.Notice(s)
		} else {
			slog.Warn("hook notice before the UI started", "text", s)
		}
	}
	return len(p), nil
}
