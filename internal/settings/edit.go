package settings

// Editing one settings file in place, for `ply mcp add` and `ply mcp
// remove`: only the "mcpServers" member changes; comments, trailing commas
// and every other setting stay as they were.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SetMCPServer adds the server name with the JSON object value to the
// "mcpServers" of the settings file at path, creating the file (and its
// directory) when missing. It refuses a name already there and a file that
// does not load. The file is replaced atomically and keeps its mode.
func SetMCPServer(path, name string, value json.RawMessage) error {
	src, s, err := readForEdit(path)
	if err != nil {
		return err
	}
	if _, ok := s.MCPServers[name]; ok {
		return fmt.Errorf("%s: an MCP server named %q is already configured; remove it first", path, name)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, value); err != nil {
		return fmt.Errorf("the server entry is not JSON: %w", err)
	}
	key, _ := json.Marshal(name)
	member := string(key) + ": " + compact.String()
	clean := StripJSONC(src)
	if len(bytes.TrimSpace(clean)) == 0 {
		out := append(bytes.Clone(src), "\n{\n  \"mcpServers\": {\n    "+member+"\n  }\n}\n"...)
		return writeChecked(path, out, name, true)
	}
	top, err := members(clean, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	obj, ok := lastMember(top.members, "mcpServers")
	if !ok {
		return writeChecked(path, insertMember(src, top, `"mcpServers": {`+"\n    "+member+"\n  }"), name, true)
	}
	inner, err := members(clean, obj.valueStart)
	if err != nil {
		return fmt.Errorf("%s: \"mcpServers\": %w", path, err)
	}
	return writeChecked(path, insertMember(src, inner, member), name, true)
}

// writeChecked writes out to path once it has checked that out loads and
// has the server name (want) or not: an edit never leaves a file broken.
func writeChecked(path string, out []byte, name string, want bool) error {
	var s Settings
	if err := DecodeJSONC(path, out, &s); err != nil {
		return fmt.Errorf("%s: the file cannot be edited safely (%v); edit it by hand", path, err)
	}
	if _, ok := s.MCPServers[name]; ok != want {
		return fmt.Errorf("%s: the file cannot be edited safely; edit it by hand", path)
	}
	return writeAtomic(path, out)
}

// RemoveMCPServer removes the server name from the "mcpServers" of the
// settings file at path. It reports false, and changes nothing, when the
// file or the server is not there.
func RemoveMCPServer(path, name string) (bool, error) {
	src, s, err := readForEdit(path)
	if err != nil || s.MCPServers[name] == nil {
		return false, err
	}
	// A key given twice is removed every time: JSON takes the last one.
	for {
		clean := StripJSONC(src)
		top, err := members(clean, 0)
		if err != nil {
			return false, fmt.Errorf("%s: %w", path, err)
		}
		var found *span
		for _, m := range top.members {
			if m.key != "mcpServers" {
				continue
			}
			inner, err := members(clean, m.valueStart)
			if err != nil {
				continue // not an object: decoding took another one
			}
			if sp, ok := lastMember(inner.members, name); ok {
				start, end := memberExtent(clean, inner, sp)
				found = &span{start: start, end: end}
			}
		}
		if found == nil {
			break
		}
		src = append(src[:found.start:found.start], src[found.end:]...)
	}
	return true, writeChecked(path, src, name, false)
}

// readForEdit reads path for an edit: a missing file is an empty one; a
// file that does not load is an error, so that nothing is written over a
// file the user has to fix first.
func readForEdit(path string) ([]byte, Settings, error) {
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Settings{}, nil
	}
	if err != nil {
		return nil, Settings{}, fmt.Errorf("reading settings: %w", err)
	}
	var s Settings
	if len(bytes.TrimSpace(StripJSONC(src))) == 0 {
		return src, s, nil
	}
	if err := DecodeJSONC(path, src, &s); err != nil {
		return nil, Settings{}, fmt.Errorf("the settings file does not load, so it was not changed: %w", err)
	}
	return src, s, nil
}

type span struct{ start, end int }

// member is one "key": value of an object, as offsets into the text.
type member struct {
	key                  string
	keyStart             int
	valueStart, valueEnd int
}

// object is an object's braces and members.
type object struct {
	open, close int // offsets of '{' and '}'
	members     []member
}

// members parses the object whose '{' is the first non-space byte at or
// after off in clean (comment-free JSON), listing its members.
func members(clean []byte, off int) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(clean[off:]))
	tok, err := dec.Token()
	if err != nil {
		return object{}, fmt.Errorf("not JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return object{}, errors.New("not an object")
	}
	o := object{open: off + int(dec.InputOffset()) - 1}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return object{}, fmt.Errorf("not JSON: %w", err)
		}
		key, _ := tok.(string)
		keyEnd := off + int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return object{}, fmt.Errorf("not JSON: %w", err)
		}
		end := off + int(dec.InputOffset())
		o.members = append(o.members, member{key: key, keyStart: keyStartBefore(clean, keyEnd), valueStart: end - len(raw), valueEnd: end})
	}
	if _, err := dec.Token(); err != nil {
		return object{}, fmt.Errorf("not JSON: %w", err)
	}
	o.close = off + int(dec.InputOffset()) - 1
	return o, nil
}

// keyStartBefore finds the opening quote of the key string that ends at
// end (just after its closing quote).
func keyStartBefore(clean []byte, end int) int {
	for i := end - 2; i >= 0; i-- {
		if clean[i] == '"' && !escaped(clean, i) {
			return i
		}
	}
	return 0
}

// escaped reports whether the byte at i is preceded by an odd number of
// backslashes.
func escaped(b []byte, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

func lastMember(ms []member, key string) (member, bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].key == key {
			return ms[i], true
		}
	}
	return member{}, false
}

// insertMember puts text as the first member of o, followed by a comma
// when o has members already.
func insertMember(src []byte, o object, text string) []byte {
	sep := "\n"
	if len(o.members) > 0 {
		sep = ","
	}
	var out bytes.Buffer
	out.Write(src[:o.open+1])
	out.WriteString("\n  " + text + sep)
	out.Write(src[o.open+1:])
	return out.Bytes()
}

// memberExtent is the text to cut to remove m from o: the member and the
// comma after it, or, for the last member, the comma before it.
func memberExtent(clean []byte, o object, m member) (int, int) {
	start, end := m.keyStart, m.valueEnd
	j := end
	for j < o.close && isSpace(clean[j]) {
		j++
	}
	if j < o.close && clean[j] == ',' {
		return start, j + 1
	}
	i := start - 1
	for i > o.open && isSpace(clean[i]) {
		i--
	}
	if i > o.open && clean[i] == ',' {
		return i, end
	}
	return start, end
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// writeAtomic replaces path with data through a temporary file in the
// same directory, keeping the old file's mode (0600 for a new one: a
// settings file may name secrets' variables and headers).
func writeAtomic(path string, data []byte) error {
	perm := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := WriteReplacing(path, data, perm); err != nil {
		return fmt.Errorf("writing settings to %s: %w", path, err)
	}
	return nil
}
