package headless

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// denialHint tells the user, on stderr, which calls a run refused because
// no one could approve them, and the flags that would have allowed them.
func denialHint(w io.Writer, denials []Denial) {
	if w == nil || len(denials) == 0 {
		return
	}
	var names []string
	for _, d := range denials {
		if !slices.Contains(names, d.ToolName) {
			names = append(names, d.ToolName)
		}
	}
	calls := "1 tool call was"
	if len(denials) > 1 {
		calls = fmt.Sprintf("%d tool calls were", len(denials))
	}
	fmt.Fprintf(w, "ply: %s refused (%s): a headless run has no one to ask. To allow such calls: "+
		"--approval-mode auto-edit (edits inside the workspace), --approval-mode auto (edits, and "+
		"shell commands inside the kernel's workspace sandbox), --allowed-tools with a rule "+
		"(e.g. --allowed-tools 'Bash(npm test:*)'), or --yolo (everything)\n", calls, strings.Join(names, ", "))
}
