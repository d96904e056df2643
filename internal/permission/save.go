package permission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/plyhq/ply/internal/settings"
)

// SaveAllowRules appends rules to the permissions.allow list of the
// settings file at path, creating the file (and its directory) when it
// does not exist. Rules already in the list are not added again.
//
// The file is JSON with comments, so it is not decoded and encoded again,
// which would drop them: the rules are inserted as text after the list's
// last entry (or the list, or the permissions object, is inserted where it
// is missing), and every other byte of the file stays as it was. A file
// that does not parse, or whose permissions or permissions.allow is not an
// object or a list, is left alone and reported.
//
// Neither the file nor its directory may be a symbolic link: a cloned
// repository's .ply could point elsewhere, and the rule would land in a
// file the user did not choose.
func SaveAllowRules(path string, rules []string) error {
	for _, p := range []string{filepath.Dir(path), path} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("permission: not saving rules: %s is a symbolic link; add them to the file it points to by hand", p)
		}
	}
	src, mode, err := settings.ReadToReplace(path)
	if err != nil {
		return fmt.Errorf("permission: saving rules: %w", err)
	}
	out, changed, err := appendAllowRules(src, rules)
	if err != nil {
		return fmt.Errorf("permission: saving rules to %s: %w", path, err)
	}
	if !changed {
		return nil
	}
	if err := settings.WriteReplacing(path, out, mode); err != nil {
		return fmt.Errorf("permission: saving rules to %s: %w", path, err)
	}
	return nil
}

// appendAllowRules returns src with rules added to permissions.allow, and
// whether anything was added.
func appendAllowRules(src []byte, rules []string) ([]byte, bool, error) {
	for _, r := range rules {
		if !utf8.ValidString(r) {
			// JSON would store another rule than the one allowed.
			return nil, false, fmt.Errorf("the rule %q is not valid UTF-8", r)
		}
	}
	clean := settings.StripJSONC(src)
	if len(bytes.TrimSpace(clean)) == 0 {
		return []byte(`{` + "\n" + `  "permissions": {` + "\n" + `    "allow": ` + jsonList(rules) + "\n  }\n}\n"), len(rules) > 0, nil
	}
	loc, err := locateAllow(clean)
	if err != nil {
		return nil, false, err
	}
	var have []string
	if loc.allow != nil {
		if err := json.Unmarshal(clean[loc.allow.open:loc.allow.close+1], &have); err != nil {
			return nil, false, errors.New("permissions.allow is not a list of strings")
		}
	}
	var add []string
	for _, r := range rules {
		if !slices.Contains(have, r) && !slices.Contains(add, r) {
			add = append(add, r)
		}
	}
	if len(add) == 0 {
		return src, false, nil
	}
	var out []byte
	switch {
	case loc.allow != nil:
		out = appendItems(src, clean, *loc.allow, quoted(add))
	case loc.perms != nil:
		out = appendItems(src, clean, *loc.perms, []string{`"allow": ` + jsonList(add)})
	default:
		out = appendItems(src, clean, loc.top, []string{`"permissions": {"allow": ` + jsonList(add) + `}`})
	}
	return out, true, nil
}

func jsonList(items []string) string { return "[" + strings.Join(quoted(items), ", ") + "]" }

func quoted(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		b, _ := json.Marshal(s)
		out[i] = string(b)
	}
	return out
}

// appendItems inserts items after the last entry of the container (object
// or list) whose brackets are at c, following its layout: on the same
// line when it is written on one line, else one per line indented as its
// last entry. Offsets in clean are those of src (StripJSONC keeps them).
func appendItems(src, clean []byte, c span, items []string) []byte {
	last := c.close - 1
	for last > c.open && isSpace(clean[last]) {
		last--
	}
	var ins string
	switch {
	case last == c.open: // empty
		ins = strings.Join(items, ", ")
	case !bytes.ContainsRune(clean[c.open:c.close], '\n'):
		ins = ", " + strings.Join(items, ", ")
	default:
		indent := lineIndent(src, last)
		ins = ",\n" + indent + strings.Join(items, ",\n"+indent)
	}
	at := last + 1
	out := make([]byte, 0, len(src)+len(ins))
	out = append(out, src[:at]...)
	out = append(out, ins...)
	return append(out, src[at:]...)
}

// lineIndent returns the leading blanks of the line holding offset i.
func lineIndent(src []byte, i int) string {
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// span is the offsets of a container's opening and closing bracket.
type span struct{ open, close int }

// allowLocation is where the settings object, its permissions object and
// that object's allow list are; perms and allow are nil when missing.
type allowLocation struct {
	top          span
	perms, allow *span
}

// locateAllow finds permissions.allow in clean JSON. Keys are matched as
// the settings loader matches them (without regard to case; the last of
// duplicates wins).
func locateAllow(clean []byte) (allowLocation, error) {
	var loc allowLocation
	dec := json.NewDecoder(bytes.NewReader(clean))
	open, err := expectDelim(dec, '{', "the settings file is not a JSON object")
	if err != nil {
		return loc, err
	}
	loc.top.open = open
	err = members(dec, func(key string) error {
		if !strings.EqualFold(key, "permissions") {
			return skipValue(dec)
		}
		p, err := expectDelim(dec, '{', "permissions is not an object")
		if err != nil {
			return err
		}
		perms := &span{open: p}
		loc.perms, loc.allow = perms, nil
		err = members(dec, func(key string) error {
			if !strings.EqualFold(key, "allow") {
				return skipValue(dec)
			}
			a, err := expectDelim(dec, '[', "permissions.allow is not a list")
			if err != nil {
				return err
			}
			for dec.More() {
				if err := skipValue(dec); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil { // ]
				return err
			}
			loc.allow = &span{open: a, close: int(dec.InputOffset()) - 1}
			return nil
		})
		perms.close = int(dec.InputOffset()) - 1
		return err
	})
	if err != nil {
		return loc, fmt.Errorf("the settings file does not parse: %w", err)
	}
	loc.top.close = int(dec.InputOffset()) - 1
	return loc, nil
}

// expectDelim reads a token that must be the delimiter d, returning its
// offset.
func expectDelim(dec *json.Decoder, d json.Delim, msg string) (int, error) {
	t, err := dec.Token()
	if err != nil {
		return 0, err
	}
	if t != d {
		return 0, errors.New(msg)
	}
	return int(dec.InputOffset()) - 1, nil
}

// members calls f for each key of the object whose { was just read, with
// the decoder before the key's value, then reads the closing }.
func members(dec *json.Decoder, f func(key string) error) error {
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if err := f(key); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// skipValue reads one whole value.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
