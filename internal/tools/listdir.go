package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// maxListEntries caps one listing; a directory of build output can hold
// hundreds of thousands of entries.
const maxListEntries = 2000

// ListDirectory is the list_directory tool: the entries of one directory.
type ListDirectory struct{ ws *Workspace }

// NewListDirectory returns list_directory confined to ws.
func NewListDirectory(ws *Workspace) *ListDirectory { return &ListDirectory{ws: ws} }

func (*ListDirectory) Name() string { return "list_directory" }
func (*ListDirectory) Kind() Kind   { return KindRead }

func (*ListDirectory) Description() string {
	return "Lists the files and subdirectories directly inside a directory (not recursively), " +
		"directories first, each marked with a trailing \"/\". Entries whose names match any of the " +
		"ignore glob patterns are left out. Use glob to find files by pattern across many directories."
}

var listDirectorySchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {
      "type": "string",
      "description": "The absolute path of the directory to list. A relative path is resolved against the workspace root."
    },
    "ignore": {
      "type": "array",
      "items": {"type": "string"},
      "description": "Glob patterns matched against entry names to leave out, for example [\"*.log\", \"node_modules\"]."
    }
  },
  "required": ["path"],
  "additionalProperties": false
}`)

func (*ListDirectory) Schema() json.RawMessage { return listDirectorySchema }

type listDirectoryParams struct {
	Path   string   `json:"path"`
	Ignore []string `json:"ignore"`
}

type listEntry struct {
	name string
	dir  bool
}

func (t *ListDirectory) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	var p listDirectoryParams
	if r := decodeFileArgs(args, &p); r != nil {
		return *r, nil
	}
	for _, pat := range p.Ignore {
		if !doublestar.ValidatePattern(pat) {
			return Errorf("INVALID_TOOL_PARAMS", "invalid ignore pattern %q", pat), nil
		}
	}
	path, r := resolveReadPath(t.ws, "path", p.Path)
	if r != nil {
		return *r, nil
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return Errorf("FILE_NOT_FOUND", "Directory not found: %s", path), nil
	case err != nil:
		return fileErrorResult(path, err), nil
	case !fi.IsDir():
		return Errorf("PATH_IS_NOT_A_DIRECTORY", "%s is a file, not a directory. Use read_file to read it.", path), nil
	}
	des, err := os.ReadDir(path)
	if err != nil {
		// ReadDir returns what it read before an error; a listing of
		// those is worse than a clear failure.
		return Errorf("READ_CONTENT_FAILURE", "Cannot list %s: %v", path, err), nil
	}

	var entries []listEntry
	ignored := 0
	for i, de := range des {
		if i%256 == 255 {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
		}
		if matchesAny(p.Ignore, de.Name()) {
			ignored++
			continue
		}
		dir := de.IsDir()
		if de.Type()&os.ModeSymlink != 0 {
			// A link to a directory is listed as one, since that is how
			// the other tools will treat it. A dangling link is a file.
			if target, err := os.Stat(filepath.Join(path, de.Name())); err == nil {
				dir = target.IsDir()
			}
		}
		entries = append(entries, listEntry{name: de.Name(), dir: dir})
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].dir != entries[j].dir {
			return entries[i].dir
		}
		return entries[i].name < entries[j].name
	})

	rel := displayPath(t.ws, path)
	note := ""
	if ignored > 0 {
		note = fmt.Sprintf("\n\n(%d entr%s ignored by the ignore patterns)", ignored, pluralY(ignored))
	}
	if len(entries) == 0 {
		return Result{
			Output:  fmt.Sprintf("Directory %s is empty.%s", path, note),
			Display: "Listed " + rel + " (empty)",
		}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Directory listing for %s:\n", path)
	for i, e := range entries {
		if i == maxListEntries {
			fmt.Fprintf(&b, "... and %d more entries not shown\n", len(entries)-maxListEntries)
			break
		}
		b.WriteString(e.name)
		if e.dir {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	out := strings.TrimSuffix(b.String(), "\n") + note
	return Result{Output: out, Display: fmt.Sprintf("Listed %d entr%s in %s", len(entries), pluralY(len(entries)), rel)}, nil
}

// matchesAny reports whether name matches one of the (validated) glob
// patterns. A pattern with a slash such as "build/" is also tried without
// it, as models write directory patterns that way.
func matchesAny(patterns []string, name string) bool {
	for _, pat := range patterns {
		if ok, _ := doublestar.Match(pat, name); ok {
			return true
		}
		if trimmed := strings.Trim(pat, "/"); trimmed != pat && trimmed != "" {
			if ok, _ := doublestar.Match(trimmed, name); ok {
				return true
			}
		}
	}
	return false
}

func pluralY(n int) string {
	if n == 1 {
		return "y"
	}
	return "ies"
}
