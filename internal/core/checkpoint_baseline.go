package core

import (
	"context"
	"fmt"
	"io"
	"iter"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plyhq/ply/internal/chat"
	"github.com/plyhq/ply/internal/llm"
)

// The first checkpoint of a process scans the whole workspace and, in a
// new store, reads and stores every file: seconds for a large tree. It is
// taken in the background from start-up, under an id reserved at once
// (checkpoint.Store.NewID), so that no request waits for it:
//
//   - a prompt sent while it runs names it as its checkpoint: nothing ply
//     runs writes before it ends, so it records the state before the
//     prompt;
//   - a batch whose writes all name their files (write_file, edit)
//     saves those ahead of it (checkpoint.Store.SaveAhead) and goes on,
//     with no checkpoint of its own: the baseline holds those files as
//     they were before;
//   - any other batch that may write (a shell command may write
//     anywhere) waits for it, then records its own checkpoint, which the
//     change tracker makes cheap;
//   - a prompt sent after files were saved ahead of it waits for it, and
//     records its own: it no longer holds the state before that prompt;
//   - a rewind waits for it, so that every checkpoint the transcript
//     names is stored.
//
// It starts once the session's first request has had its first answer
// (requestSent) or a second after start-up, whichever is first: a
// scan of a large tree keeps both cores of a small machine busy, and the
// first request, which never waits for it, should not have to share them
// either; a session that sends nothing at once (the TUI, waiting for a
// prompt) starts it a second in.
//
// A session that ends before it is stored finishes it when a prompt
// named it, so that the transcript names no checkpoint the store lacks,
// and cancels it otherwise. Only a crash meanwhile leaves a prompt naming
// a checkpoint that was never stored ("checkpoint pruned" to a rewind,
// or, when files were saved ahead of it, a rewind that puts back those
// files alone); ply wrote nothing else meanwhile, so no state is lost
// with it.

// baseline is the checkpoint taken in the background from start-up.
type baseline struct {
	id     string
	done   chan struct{} // closed when the checkpoint ends, stored or not
	cancel context.CancelFunc
	sent   chan struct{} // closed by requestSent
	once   sync.Once
	// named: a prompt's transcript entry names it (onUserQuery).
	named atomic.Bool
	// wroteAhead: a batch saved files ahead of it and went on to write
	// them (checkpointer.saveAhead), so it no longer records the state
	// before a new prompt.
	wroteAhead atomic.Bool
}

// baselineHook, when set by a test, runs in the baseline's goroutine
// before it scans.
var baselineHook func()

// baselineDelay is the longest the baseline waits for the first request
// to be answered before it starts.
var baselineDelay = time.Second

// progressAfter is how long a wait for the baseline lasts before the
// user is told of it.
var progressAfter = time.Second

// startBaseline starts the session's first checkpoint in the background,
// after first (pruning the store).
func (c *checkpointer) startBaseline(first func()) {
	ctx, cancel := context.WithCancel(context.Background())
	b := &baseline{id: c.store.NewID(), done: make(chan struct{}), cancel: cancel, sent: make(chan struct{})}
	c.baseline = b
	hook := baselineHook
	go func() {
		defer close(b.done)
		t := time.NewTimer(baselineDelay)
		defer t.Stop()
		select {
		case <-b.sent:
		case <-t.C:
		case <-ctx.Done():
			return
		}
		first()
		if hook != nil {
			hook()
		}
		if _, err := c.takeAs(ctx, "start", b.id); err != nil && ctx.Err() == nil && b.named.Load() {
			// Said as a prompt's own checkpoint failure is: the user
			// relies on /rewind to undo what the prompt's tools change.
			c.say("ply: warning: this prompt has no checkpoint, /rewind cannot return to before it: " + err.Error())
		}
	}()
}

// requestSent says the session's first request has been answered (or
// has failed): the baseline may start.
func (c *checkpointer) requestSent() {
	if c != nil && c.baseline != nil {
		c.baseline.once.Do(func() { close(c.baseline.sent) })
	}
}

// pendingBaseline returns the id of the baseline while it is being taken,
// "" once it has ended (or when there is none). See nameBaseline.
func (c *checkpointer) pendingBaseline() string {
	if b := c.baseline; b != nil {
		select {
		case <-b.done:
		default:
			return b.id
		}
	}
	return ""
}

// waitBaseline waits for the baseline to end, telling the user when the
// wait is long enough to be seen; false when ctx ended first.
func (c *checkpointer) waitBaseline(ctx context.Context) bool {
	if c.pendingBaseline() == "" {
		return true
	}
	t := time.NewTimer(progressAfter)
	defer t.Stop()
	select {
	case <-c.baseline.done:
		return true
	case <-ctx.Done():
		return false
	case <-t.C:
		start := time.Now()
		c.say("ply: recording the workspace's first checkpoint before changing files...")
		defer func() {
			c.say(fmt.Sprintf("ply: checkpoint recorded (waited %s)", time.Since(start).Round(100*time.Millisecond)))
		}()
	}
	select {
	case <-c.baseline.done:
		return true
	case <-ctx.Done():
		return false
	}
}

// stopBaseline ends the baseline: it is finished when a prompt names it,
// cancelled otherwise, and waited for.
func (c *checkpointer) stopBaseline() {
	b := c.baseline
	if b == nil {
		return
	}
	if b.named.Load() {
		c.requestSent() // start it now if it has not started
		select {
		case <-b.done:
		case <-time.After(progressAfter):
			c.say("ply: finishing the workspace's first checkpoint before exit (a prompt of this session names it)...")
			<-b.done
		}
		return
	}
	b.cancel()
	<-b.done
}

func (c *checkpointer) say(line string) {
	if c.notices != nil {
		io.WriteString(c.notices, line+"\n")
	}
}

// answerSignal is the session's provider, telling the checkpointer when
// the first request has its first answer (a chunk, or the end of the
// stream), so that the baseline starts after it.
type answerSignal struct {
	chat.Provider
	c *Session
}

func (p answerSignal) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Chunk, error] {
	seq := p.Provider.Stream(ctx, req)
	return func(yield func(llm.Chunk, error) bool) {
		defer p.c.cp.requestSent()
		for ch, err := range seq {
			p.c.cp.requestSent()
			if !yield(ch, err) {
				return
			}
		}
	}
}

// nameBaseline returns the id of the baseline while it is being taken, as
// pendingBaseline does, and marks it named by a prompt: it is then
// finished, not cancelled, when the session ends first.
func (c *checkpointer) nameBaseline() string {
	id := c.pendingBaseline()
	if id != "" && c.baseline.wroteAhead.Load() {
		return ""
	}
	if id != "" {
		c.baseline.named.Store(true)
	}
	return id
}
