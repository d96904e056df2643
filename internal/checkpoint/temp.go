package checkpoint

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/plyhq/ply/internal/tools"
)

// Temporary files. A checkpoint never records ply's own temporary files
// in a workspace (the file tools' and a restore's, tools.TempName), and
// removes those whose writer is gone (tools.StaleTemp) as its scan meets
// them. The store's are named NAME.tmp-RANDOM, beside the file they
// become, or in objects/ for contents; only a process holding the store's
// lock writes them, so whoever takes the lock with none written may
// remove them all: Open does, when the lock is free.

// isTemp reports whether the slash path rel names one of ply's temporary
// files (tools.IsTempName), and its writer's process id.
func isTemp(rel string) (pid int, ok bool) { return tools.IsTempName(path.Base(rel)) }

// sweepTemp removes the temporary file f under root when its writer is
// gone.
func sweepTemp(root string, f tools.WorkspaceFile) {
	fi, err := f.Lstat()
	if err != nil || !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
		return
	}
	if tools.StaleTemp(path.Base(f.Rel), fi.ModTime()) {
		removeEntry(root, f.Rel)
	}
}

// sweepStore removes the temporary files a killed process left in the
// store, unless another process holds it.
func (s *Store) sweepStore() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // take the lock only if it is free now
	unlock, err := s.lock(ctx)
	if err != nil {
		return
	}
	defer unlock()
	for _, d := range []string{s.dir, filepath.Join(s.dir, "manifests"), filepath.Join(s.dir, "objects"), s.packs.dir} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if e.Type().IsRegular() && strings.Contains(e.Name(), ".tmp-") {
				os.Remove(filepath.Join(d, e.Name()))
			}
		}
	}
}
