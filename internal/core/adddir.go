package core

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// AddDir adds dir to the workspace for the rest of the session
// (/add-dir), as --include-directories does at start: the file tools read
// and write there, auto-edit's approvals and the shell's confinement (the
// read-only profile, auto's sandbox) take it as part of the workspace,
// and the model is told with its next message. A leading ~ is the home
// directory; a relative dir is taken from the workspace's first root.
//
// caveats says what does not follow the new root: checkpoints go on
// covering the roots the session started with (a rewind would otherwise
// treat every file of the new root as created since an older
// checkpoint, and delete it), --sandbox's write list was fixed at start,
// and a resumed session starts without the directory.
func (c *Session) AddDir(dir string) (added string, caveats []string, err error) {
	dir = strings.TrimSpace(dir)
	if rest, ok := strings.CutPrefix(dir, "~"); ok && (rest == "" || rest[0] == '/') {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", nil, fmt.Errorf("adding %s to the workspace: %w", dir, err)
		}
		dir = filepath.Join(home, rest)
	}
	added, err = c.ws.AddRoot(dir)
	if err != nil {
		return "", nil, err
	}
	c.modes.queue("<system-reminder>The user added the directory "+added+" to the workspace: "+
		"the file tools may now read and write files under it (use absolute paths there).</system-reminder>", nil)
	if c.cp != nil {
		caveats = append(caveats, "files there are not checkpointed: /rewind does not restore them")
	}
	if c.cfg.Sandbox.Enabled {
		caveats = append(caveats, "--sandbox lets commands write only where it did at start, not there")
	}
	caveats = append(caveats, "for this run only: to have it on resume, start ply with --include-directories "+added)
	return added, caveats, nil
}
