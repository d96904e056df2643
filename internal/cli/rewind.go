package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/tools"
)

const rewindUsage = "usage: ply rewind --list [-r ID] | ply rewind N [-r ID] [--code|--conversation] | ply rewind --undo [-r ID]"

// rewindArgs is the parsed command line of ply rewind.
type rewindArgs struct {
	list, undo         bool
	n                  int // 0 when not given
	session            string
	code, conversation bool
}

func parseRewind(args []string) (rewindArgs, error) {
	var a rewindArgs
	for len(args) > 0 {
		switch x := args[0]; {
		case x == "--list":
			a.list = true
		case x == "--undo":
			a.undo = true
		case x == "--code":
			a.code = true
		case x == "--conversation":
			a.conversation = true
		case (x == "-r" || x == "--resume") && len(args) > 1:
			a.session, args = args[1], args[1:]
		case strings.HasPrefix(x, "--resume="):
			a.session = strings.TrimPrefix(x, "--resume=")
		default:
			n, err := strconv.Atoi(x)
			if err != nil || a.n != 0 {
				return a, fmt.Errorf("ply rewind: unexpected argument %q (%s)", x, rewindUsage)
			}
			if n < 1 {
				return a, fmt.Errorf("ply rewind: prompt number %d: prompts are numbered from 1 (ply rewind --list)", n)
			}
			a.n = n
		}
		args = args[1:]
	}
	modes := 0
	for _, b := range []bool{a.list, a.undo, a.n > 0} {
		if b {
			modes++
		}
	}
	if modes != 1 {
		return a, errors.New(rewindUsage)
	}
	if a.code && a.conversation {
		return a, errors.New("ply rewind: --code and --conversation together are the default: give neither")
	}
	if !a.code && !a.conversation {
		a.code, a.conversation = true, true
	}
	return a, nil
}

// rewindCommand runs ply rewind.
func rewindCommand(ctx context.Context, args []string, sio IO) int {
	a, err := parseRewind(args)
	if err != nil {
		return fail(sio, exitcode.Input, err.Error())
	}
	home, workspace, err := locate(sio)
	if err != nil {
		return fail(sio, exitcode.Config, err.Error())
	}
	ws, err := tools.NewWorkspace(workspace)
	if err != nil {
		return fail(sio, exitcode.Input, err.Error())
	}
	ft := checkTrust(home, ws.Root(), false, io.Discard)
	st, _, err := settings.Load(home, ws.Root(), ft.trusted)
	if err != nil {
		return fail(sio, exitcode.Config, "bad settings file: "+err.Error())
	}
	var sum session.Summary
	if a.session != "" {
		sum, err = session.Find(home, ws.Root(), a.session)
	} else {
		sum, err = session.Latest(home, ws.Root())
	}
	if err != nil {
		return fail(sio, exitcode.Input, fmt.Sprintf("finding the session: %v", err))
	}
	// Hold the session's lock: a ply still running it must not append
	// while the conversation is rewound under it.
	w, _, err := session.Open(sum.Path)
	if err != nil {
		return fail(sio, exitcode.Error, err.Error())
	}
	defer func() {
		if err := w.Close(); err != nil {
			fmt.Fprintf(sio.Stderr, "ply: saving the session: %v\n", err)
		}
	}()
	log, err := session.Prompts(sum.Path)
	if err != nil {
		return fail(sio, exitcode.Error, err.Error())
	}
	store, err := core.OpenCheckpoints(home, ws.Root(), st.Checkpointing, false, ft.trusted)
	if err != nil {
		return fail(sio, exitcode.Error, fmt.Sprintf("opening the checkpoints: %v", err))
	}
	rw := &rewinder{store: store, w: w, log: log, out: sio.Stdout}
	switch {
	case a.list:
		err = rw.list(ctx)
	case a.undo:
		err = rw.undo(ctx)
	default:
		err = rw.rewind(ctx, a)
	}
	var ie inputError
	if errors.As(err, &ie) {
		return fail(sio, exitcode.Input, err.Error())
	}
	if err != nil {
		return fail(sio, exitcode.Error, err.Error())
	}
	return 0
}

// inputError is a request that cannot be met as asked (exit 42).
type inputError string

func (e inputError) Error() string { return string(e) }

// rewinder carries out ply rewind on one session.
type rewinder struct {
	store *checkpoint.Store
	w     *session.Writer
	log   *session.PromptLog
	out   io.Writer
}

// list prints one line per prompt: number, time, first line, and how many
// files changed since its checkpoint.
func (r *rewinder) list(ctx context.Context) error {
	if len(r.log.Prompts) == 0 {
		fmt.Fprintln(r.out, "This session has no prompts to rewind to.")
		return nil
	}
	changes := r.changedSince(ctx)
	for i, p := range r.log.Prompts {
		changed := "no checkpoint"
		switch n := changes[i]; {
		case n >= 0:
			changed = plural(n, "file") + " changed since"
		case p.Checkpoint != "" && n == -2:
			changed = "checkpoint pruned"
		}
		first, _, _ := strings.Cut(p.Text, "\n")
		fmt.Fprintf(r.out, "%3d  %s  %-50s  %s\n", p.N, p.Time.Local().Format("2006-01-02 15:04"), clipLine(first, 50), changed)
	}
	if r.log.Last != nil {
		fmt.Fprintln(r.out, "The last rewind can be undone: ply rewind --undo")
	}
	return nil
}

// changedSince returns, prompt by prompt, how many files changed since
// its checkpoint: -1 when it has none, -2 when it is gone.
func (r *rewinder) changedSince(ctx context.Context) []int {
	out := make([]int, len(r.log.Prompts))
	var cur *checkpoint.Manifest
	if r.store != nil {
		cur = r.current(ctx)
	}
	for i, p := range r.log.Prompts {
		out[i] = -1
		if p.Checkpoint == "" || cur == nil {
			continue
		}
		m, err := r.store.Load(p.Checkpoint)
		if err != nil {
			out[i] = -2
			continue
		}
		out[i] = len(checkpoint.Diff(m, cur))
	}
	return out
}

// current records the workspace as it is now, with the roots of the
// newest checkpoint of the session; nil when there is none.
func (r *rewinder) current(ctx context.Context) *checkpoint.Manifest {
	for i := len(r.log.Prompts) - 1; i >= 0; i-- {
		m, err := r.store.Load(r.log.Prompts[i].Checkpoint)
		if err != nil {
			continue
		}
		res, err := r.store.Checkpoint(ctx, m.Roots)
		if err != nil {
			return nil
		}
		cur, err := r.store.Load(res.ID)
		if err != nil {
			return nil
		}
		return cur
	}
	return nil
}

func (r *rewinder) rewind(ctx context.Context, a rewindArgs) error {
	if a.n > len(r.log.Prompts) {
		return inputError(fmt.Sprintf("no prompt %d: this session has %s (ply rewind --list)", a.n, plural(len(r.log.Prompts), "prompt")))
	}
	p := r.log.Prompts[a.n-1]
	rec := session.Rewind{Prompt: a.n, Code: a.code, Conversation: a.conversation}
	if a.code {
		if r.store == nil {
			return inputError("checkpointing is off (checkpointing.enabled): only the conversation can be rewound")
		}
		if p.Checkpoint == "" {
			return inputError(fmt.Sprintf("prompt %d has no checkpoint (checkpointing was off): use --conversation", a.n))
		}
		res, err := r.restore(ctx, p.Checkpoint)
		if err != nil {
			return err
		}
		rec.Checkpoint = res.Undo
		fmt.Fprintf(r.out, "Restored the files to before prompt %d: %d written, %d deleted.\n", a.n, len(res.Written), len(res.Deleted))
	}
	if a.conversation {
		rec.History = p.History
		fmt.Fprintf(r.out, "The conversation goes on from before prompt %d (ply --continue). The prompt was:\n%s\n", a.n, p.Text)
	}
	r.w.AppendRewind(rec)
	return r.w.Sync()
}

func (r *rewinder) undo(ctx context.Context) error {
	last := r.log.Last
	if last == nil {
		return inputError("no rewind to undo in this session")
	}
	rec := session.Rewind{Undo: true, Code: last.Code, Conversation: last.Conversation}
	if last.Code && r.store == nil {
		return inputError("checkpointing is off (checkpointing.enabled): the files cannot be put back")
	}
	if last.Code {
		res, err := r.restore(ctx, last.Checkpoint)
		if err != nil {
			return err
		}
		rec.Checkpoint = res.Undo
		fmt.Fprintf(r.out, "Put the files back as they were before the rewind: %d written, %d deleted.\n", len(res.Written), len(res.Deleted))
	}
	if last.Conversation {
		rec.History = last.History
		fmt.Fprintln(r.out, "The conversation is back as it was before the rewind.")
	}
	r.w.AppendRewind(rec)
	return r.w.Sync()
}

// restore restores checkpoint id and says what it could not do.
func (r *rewinder) restore(ctx context.Context, id string) (checkpoint.RestoreResult, error) {
	if t, ok := r.store.Pending(); ok {
		fmt.Fprintf(r.out, "Completing an interrupted rewind (to checkpoint %s) first.\n", t)
	}
	res, err := r.store.Restore(ctx, id)
	if errors.Is(err, checkpoint.ErrNotFound) {
		return res, fmt.Errorf("the checkpoint is gone (pruned after checkpointing.retentionDays?): %w", err)
	}
	if err != nil {
		return res, err
	}
	for _, p := range res.NotRestored {
		fmt.Fprintf(r.out, "Not restored (over the checkpoint size cap, its content was not saved): %s\n", p)
	}
	for _, p := range res.LeftInPlace {
		fmt.Fprintf(r.out, "Left in place (over the size cap, so deleting or replacing it could not be undone): %s\n", p)
	}
	for _, p := range res.KeptIgnored {
		fmt.Fprintf(r.out, "Left in place (ignored when the checkpoint was made, so never recorded): %s\n", p)
	}
	return res, nil
}

// clipLine cuts s to n runes, marking a cut.
func clipLine(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}
