package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/ignore"
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
// files (an email address, @mentions) are left alone. Notes about what
// was skipped go to the model with the content.
func expandAtPaths(prompt string, ws *tools.Workspace) string {
	var gi *ignore.Matcher
	if b, err := os.ReadFile(filepath.Join(ws.Root(), ".gitignore")); err == nil {
		gi = ignore.Parse("", b) // dir is relative to the walk root: the root itself
	}
	var b strings.Builder
	total := 0
	seen := map[string]bool{}
	for _, word := range strings.Fields(prompt) {
		if !strings.HasPrefix(word, "@") || len(word) < 2 {
			continue
		}
		ref := strings.TrimRight(word[1:], ".,;:!?)\"'")
		abs, err := ws.Resolve(ref)
		if err != nil || seen[abs] {
			continue
		}
		fi, err := os.Stat(abs)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		seen[abs] = true
		rel, _ := filepath.Rel(ws.Root(), abs)
		if gi != nil && gi.Match(filepath.ToSlash(rel), false) == ignore.Ignore {
			fmt.Fprintf(&b, "\n\n[@%s is ignored by .gitignore and was not included]", ref)
			continue
		}
		if fi.Size() > maxAtFile || total+int(fi.Size()) > maxAtTotal {
			fmt.Fprintf(&b, "\n\n[@%s is %d bytes, over the size cap; read it with read_file instead]", ref, fi.Size())
			continue
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			continue
		}
		if !utf8.Valid(data) || strings.IndexByte(string(data), 0) >= 0 {
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
