package session

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

// fullDisk passes room bytes through to w, then fails as a full disk
// does: the write that reaches the limit is cut short.
type fullDisk struct {
	w    io.Writer
	room int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) <= d.room {
		d.room -= len(p)
		return d.w.Write(p)
	}
	n, _ := d.w.Write(p[:d.room])
	d.room -= n
	return n, syscall.ENOSPC
}

// A write that fails for want of room is the writer's error, and the
// transcript says on load how many records are missing and why, in place
// of a torn line taken for a crash.
func TestFullDiskIsReportedAndMarked(t *testing.T) {
	restore := SetWriteFault(func(_ string, f io.Writer) io.Writer { return &fullDisk{w: f, room: 150} })
	defer restore()
	_, _, w := newSession(t, "3c1d8f0a-full-disk")
	saved := user(text("short"))
	w.Append(saved)
	if err := w.Sync(); err != nil {
		t.Fatalf("the first line fits: %v", err)
	}
	w.Append(model(llm.FinishStop, text(strings.Repeat("a long answer ", 20))))
	w.Append(user(text("more")))
	w.AppendCancelled("cancelled by the user")
	err := w.Sync()
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("Sync = %v, want the write's ENOSPC", err)
	}
	if err := w.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Close = %v, want the write's ENOSPC", err)
	}
	tr := mustLoad(t, w.Path())
	if !reflect.DeepEqual(tr.History, []llm.Message{saved}) {
		t.Fatalf("history %+v, want the one line saved", tr.History)
	}
	if len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0].Msg, "3 records after this line could not be saved") ||
		!strings.Contains(tr.Warnings[0].Msg, "no space left on device") {
		t.Fatalf("warnings %v, want one saying 3 records could not be saved for want of space", tr.Warnings)
	}
}

// A torn last line is not claimed to be a crash: a full disk tears one too.
func TestTornLineWarningNamesBothCauses(t *testing.T) {
	_, _, w := newSession(t, "5e0b7c2d-torn-words")
	w.Append(user(text("hello")))
	mustClose(t, w)
	appendRaw(t, w.Path(), `{"type":"entry","message":{"role":"model"`)
	tr := mustLoad(t, w.Path())
	if len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0].Msg, "killed, or the disk was full") {
		t.Fatalf("warnings %v", tr.Warnings)
	}
}
