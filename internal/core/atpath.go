package core

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/ignore"
	"github.com/plyhq/ply/internal/safefile"
	"github.com/plyhq/ply/internal/tools"
)

// Caps for @path references: one file, and all of them together.
const (
	maxAtFile  = 256 << 10
	maxAtTotal = 1 << 20
)

// expandAtPaths appends the contents of the files a prompt names as
// @path, so the model has them without a round-trip. Paths must be in the
// workspace and not ignored by the root .gitignore; words that are not
// files (an email address, @mentions) are left alone. A file is read only
// when its real path is a regular file inside a workspace root, and at
// most up to the cap (safefile): a link out of the workspace, a named
// pipe, a device or a file of /proc is named in a note instead. Notes
// about what was skipped go to the model with the content.
func expandAtPaths(prompt string, ws *tools.Workspace) string {
	var gi *ignore.Matcher
	if f, err := safefile.ReadWithin(filepath.Join(ws.Root(), ".gitignore"), maxAtFile, "the workspace", ws.Root()); err == nil {
		gi = ignore.Parse("", f.Data) // dir is relative to the walk root: the root itself
	}
	var b strings.Builder
	total := 0
	seen := map[string]bool{}
	for _, word := range strings.Fields(prompt) {
		if !strings.HasPrefix(word, "@") || len(word) < 2 {
			continue
		}
		ref := strings.TrimRight(word[1:], ".,;:!?)\"'")
		abs := ref
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(ws.Root(), abs)
		}
		abs = filepath.Clean(abs)
		if fi, err := os.Stat(abs); err != nil || fi.IsDir() || seen[abs] {
			continue
		}
		seen[abs] = true
		rel, _ := filepath.Rel(ws.Root(), abs)
		if gi != nil && gi.Match(filepath.ToSlash(rel), false) == ignore.Ignore {
			fmt.Fprintf(&b, "\n\n[@%s is ignored by .gitignore and was not included]", ref)
			continue
		}
		f, err := safefile.ReadWithin(abs, maxAtFile, "the workspace", ws.Roots()...)
		var skip *safefile.SkipError
		switch {
		case errors.As(err, &skip):
			fmt.Fprintf(&b, "\n\n[@%s was not included: %s]", ref, skip.Reason)
			continue
		case err != nil:
			continue
		case f.Truncated || total+len(f.Data) > maxAtTotal:
			fmt.Fprintf(&b, "\n\n[@%s is %d bytes, over the size cap; read it with read_file instead]", ref, f.Size)
			continue
		}
		data := f.Data
		if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
			fmt.Fprintf(&b, "\n\n[@%s is a binary file and was not included]", ref)
			continue
		}
		total += len(data)
		fmt.Fprintf(&b, "\n\n--- Content from @%s ---\n%s\n--- End of @%s ---", ref, strings.TrimRight(string(data), "\n"), ref)
	}
	if b.Len() == 0 {
		return prompt
	}
	return prompt + b.String()
}
