package cli

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/plyhq/ply/internal/core"
	"github.com/plyhq/ply/internal/tui"
)

// endTUI settles the session once the interactive UI is gone: it is
// closed, and removed if this run created it and it never got a prompt;
// a kept session gets the exit summary with the command that resumes it.
func endTUI(cfg *config, c *core.Session, sum tui.Summary, out io.Writer, log *slog.Logger) {
	kept, err := c.CloseTranscript()
	if err != nil {
		fmt.Fprintf(out, "ply: saving the session: %v\n", err)
	}
	if kept {
		fmt.Fprint(out, sum.Text(c.ID()))
	}
}
