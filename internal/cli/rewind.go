package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/critical"
	"github.com/plyhq/ply/internal/exitcode"
	"github.com/plyhq/ply/internal/rewind"
	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/tools"
)

const rewindUsage = "usage: ply rewind --list [-r ID] | ply rewind N [-r ID] [--code|--conversation] | ply rewind --undo [-r ID] | ply rewind --finish [-r ID]"

// rewindArgs is the parsed command line of ply rewind.
type rewindArgs struct {
	list, undo, finish bool
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
		case x == "--finish":
			a.finish = true
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
	for _, b := range []bool{a.list, a.undo, a.finish, a.n > 0} {
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
	// A rewind holds the session's lock: a ply still running it must not
	// append while the conversation is rewound under it. A listing only
	// reads, and answers beside a running session.
	var w *session.Writer
	if !a.list {
		if w, _, err = session.Open(sum.Path); err != nil {
			return fail(sio, exitcode.Error, err.Error())
		}
		defer func() {
			if err := w.Close(); err != nil {
				fmt.Fprintf(sio.Stderr, "ply: saving the session: %v\n", err)
			}
		}()
	}
	log, err := session.Prompts(sum.Path)
	if err != nil {
		return fail(sio, exitcode.Error, err.Error())
	}
	store, err := core.OpenCheckpoints(home, ws.Root(), st.Checkpointing, false, ft.trusted)
	if err != nil {
		return fail(sio, exitcode.Error, fmt.Sprintf("opening the checkpoints: %v", err))
	}
	if warn := rewind.PendingWarning(store); warn != "" && !a.finish {
		fmt.Fprintln(sio.Stderr, warn)
	}
	rw := &rewind.Rewinder{Store: store, W: w, Log: log, Out: sio.Stdout}
	err = runRewind(ctx, rw, a, sio.Stderr)
	switch {
	case ctx.Err() != nil && err == nil:
		return fail(sio, exitcode.Cancelled, "interrupted: the rewind was finished and recorded first")
	case errors.Is(err, context.Canceled):
		return fail(sio, exitcode.Cancelled, "interrupted before the rewind changed any file")
	case ctx.Err() != nil:
		return fail(sio, exitcode.Cancelled, err.Error())
	}
	var ie rewind.InputError
	if errors.As(err, &ie) {
		return fail(sio, exitcode.Input, err.Error())
	}
	if err != nil {
		return fail(sio, exitcode.Error, err.Error())
	}
	return 0
}

// runRewind does what a asks of rw. A rewind that writes files holds a
// critical section: a signal that arrives meanwhile (it is told on
// stderr) takes effect once the files are restored and the rewind
// recorded, never half-way.
func runRewind(ctx context.Context, rw *rewind.Rewinder, a rewindArgs, stderr io.Writer) error {
	if a.list {
		return rw.List(ctx)
	}
	leave := critical.Enter(func(sig os.Signal) {
		fmt.Fprintf(stderr, "ply: %v: a rewind that has begun changing files is finished first, so that none is left half restored\n", sig)
	})
	defer leave()
	switch {
	case a.undo:
		return rw.Undo(ctx)
	case a.finish:
		return rw.Finish(ctx)
	default:
		return rw.Rewind(ctx, a.n, a.code, a.conversation)
	}
}
