package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plyhq/ply/internal/scheduler"
)

// loadSchema reads --json-schema: inline JSON, or @file relative to dir.
// It must be a JSON Schema for an object (tool arguments are objects), and
// it is compiled here so a broken schema stops ply before any request.
func loadSchema(arg, dir string) (json.RawMessage, error) {
	src := []byte(arg)
	if name, ok := strings.CutPrefix(arg, "@"); ok {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("--json-schema: reading %w", err)
		}
		src = b
	}
	var obj map[string]any
	if err := json.Unmarshal(src, &obj); err != nil {
		return nil, fmt.Errorf("--json-schema is not a JSON object: %w", err)
	}
	if t, ok := obj["type"]; ok && t != "object" {
		return nil, errors.New(`--json-schema must describe an object ("type": "object")`)
	}
	obj["type"] = "object"
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("--json-schema: %w", err)
	}
	// The structured_output tool validates against this text with the
	// scheduler's validator, so it is checked by the same one.
	if err := scheduler.CheckSchema(out); err != nil {
		return nil, fmt.Errorf("--json-schema is not a valid JSON Schema: %w", err)
	}
	return out, nil
}
