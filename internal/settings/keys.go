package settings

// The settings /config shows and sets one at a time: every key of
// Settings that holds a plain value (a string, a number, a switch or a
// list of strings), by its dotted name. Maps (modelProviders,
// mcpServers, hooks) and the permission rules have their own commands
// and are edited by hand or by those.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/plyhq/ply/internal/spell"
)

// Key is one setting /config can set: its dotted name, the kind of value
// it takes ("text", "number", "whole number", "true or false", "list"),
// and whether only the user's own file may set it (a cloned repository
// must not decide it).
type Key struct {
	Name     string
	Kind     string
	UserOnly bool
}

// userOnly are the sections read from the user's file alone (User).
var userOnly = []string{"webFetch", "shellEnvironment", "tools.webSearch", "allowUnsandboxed", "telemetry"}

// Keys lists the settings /config can set, in the order of Settings.
func Keys() []Key {
	var out []Key
	walkLeaves(reflect.TypeFor[Settings](), "", func(name, kind string) {
		k := Key{Name: name, Kind: kind}
		for _, u := range userOnly {
			if name == u || strings.HasPrefix(name, u+".") {
				k.UserOnly = true
			}
		}
		out = append(out, k)
	})
	return out
}

// noConfig are the sections /config leaves to their own commands.
var noConfig = map[string]bool{"permissions": true, "modelProviders": true, "hooks": true, "mcpServers": true}

func walkLeaves(t reflect.Type, prefix string, leaf func(name, kind string)) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "" || tag == "-" || noConfig[tag] {
			continue
		}
		name := prefix + tag
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.Struct:
			walkLeaves(ft, name+".", leaf)
		case reflect.String:
			leaf(name, "text")
		case reflect.Bool:
			leaf(name, "true or false")
		case reflect.Int, reflect.Int64:
			leaf(name, "whole number")
		case reflect.Float64:
			leaf(name, "number")
		case reflect.Slice:
			if ft.Elem().Kind() == reflect.String {
				leaf(name, "list")
			}
		}
	}
}

// LookupKey finds the setting name, or says which ones it may have meant.
func LookupKey(name string) (Key, error) {
	var names []string
	for _, k := range Keys() {
		if k.Name == name {
			return k, nil
		}
		names = append(names, k.Name)
	}
	msg := fmt.Sprintf("unknown setting %q", name)
	if near := spell.Closest(name, names, 3, strings.ToLower, func(cand string, d int) bool { return d <= max(2, len(cand)/4) }); len(near) > 0 {
		msg += " (did you mean " + strings.Join(near, ", ") + "?)"
	} else if noConfig[strings.SplitN(name, ".", 2)[0]] {
		msg += ": edit it in the settings file (permission rules: /permissions; MCP servers: ply mcp add)"
	}
	return Key{}, fmt.Errorf("%s", msg)
}

// Parse turns text, as typed, into the JSON value k takes: text as it
// is (or a JSON string), numbers, true/false (on/off, yes/no), and a list
// as JSON or comma-separated.
func (k Key) Parse(text string) (json.RawMessage, error) {
	text = strings.TrimSpace(text)
	bad := func() (json.RawMessage, error) {
		return nil, fmt.Errorf("%s takes %s, not %q", k.Name, article(k.Kind), text)
	}
	switch k.Kind {
	case "text":
		var s string
		if json.Unmarshal([]byte(text), &s) != nil {
			s = text
		}
		return json.Marshal(s)
	case "true or false":
		switch strings.ToLower(text) {
		case "true", "on", "yes":
			return json.RawMessage("true"), nil
		case "false", "off", "no":
			return json.RawMessage("false"), nil
		}
		return bad()
	case "whole number":
		if _, err := strconv.ParseInt(text, 10, 64); err != nil {
			return bad()
		}
		return json.RawMessage(text), nil
	case "number":
		if _, err := strconv.ParseFloat(text, 64); err != nil {
			return bad()
		}
		return json.RawMessage(text), nil
	case "list":
		var l []string
		if json.Unmarshal([]byte(text), &l) != nil {
			l = nil
			for _, s := range strings.Split(text, ",") {
				if s = strings.TrimSpace(s); s != "" {
					l = append(l, s)
				}
			}
		}
		if l == nil {
			l = []string{}
		}
		return json.Marshal(l)
	}
	return bad()
}

func article(kind string) string {
	switch kind {
	case "list":
		return "a list (JSON, or comma-separated)"
	case "true or false":
		return "true or false"
	}
	return "a " + kind
}

// ValueIn is the value the settings file at path gives the dotted key,
// if it gives one. "model" written as a plain name is model.name.
func ValueIn(path, key string) (json.RawMessage, bool) {
	src, _, err := readForEdit(path)
	if err != nil || len(bytes.TrimSpace(StripJSONC(src))) == 0 {
		return nil, false
	}
	var cur json.RawMessage
	if DecodeJSONC(path, src, &cur) != nil {
		return nil, false
	}
	for i, part := range strings.Split(key, ".") {
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) != nil {
			if i == 1 && key == "model.name" && bytes.HasPrefix(bytes.TrimSpace(cur), []byte(`"`)) {
				return cur, true
			}
			return nil, false
		}
		v, ok := obj[part]
		if !ok {
			return nil, false
		}
		cur = v
	}
	return cur, true
}

// SetKey sets the dotted key to value in the settings file at path,
// creating the file, and the objects on the way, when missing. The rest
// of the file, comments included, stays as it was; the result must load,
// or nothing is written.
func SetKey(path, key string, value json.RawMessage) error {
	return editKey(path, key, value)
}

// UnsetKey removes the dotted key from the settings file at path; false
// when the file does not set it.
func UnsetKey(path, key string) (bool, error) {
	if _, ok := ValueIn(path, key); !ok {
		return false, nil
	}
	return true, editKey(path, key, nil)
}

// editKey sets key to value, or removes it when value is nil.
func editKey(path, key string, value json.RawMessage) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link; edit the file it points to by hand", path)
	}
	src, _, err := readForEdit(path)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(StripJSONC(src))) == 0 {
		src = append(src, "{\n}\n"...)
	}
	parts := strings.Split(key, ".")
	clean := StripJSONC(src)
	obj, err := members(clean, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for i, part := range parts {
		m, ok := lastMember(obj.members, part)
		last := i == len(parts)-1
		switch {
		case value == nil && !ok:
			return nil
		case value == nil && (last || key == "model.name" && isString(clean[m.valueStart:m.valueEnd])):
			start, end := memberExtent(clean, obj, m)
			src = append(src[:start:start], src[end:]...)
		case last && ok:
			src = splice(src, m.valueStart, m.valueEnd, value)
		case !ok:
			src = insertMember(src, obj, nested(parts[i:], value))
		case isString(clean[m.valueStart:m.valueEnd]) && key == "model.name":
			src = splice(src, m.valueStart, m.valueEnd, value)
		case isString(clean[m.valueStart:m.valueEnd]) && part == "model" && value != nil:
			// "model": "name" takes its knobs as an object.
			obj := fmt.Sprintf(`{"name": %s, %s}`, bytes.TrimSpace(clean[m.valueStart:m.valueEnd]), nested(parts[i+1:], value))
			src = splice(src, m.valueStart, m.valueEnd, json.RawMessage(obj))
		default:
			inner, err := members(clean, m.valueStart)
			if err != nil {
				return fmt.Errorf("%s: %q is not an object; edit the file by hand", path, strings.Join(parts[:i+1], "."))
			}
			obj = inner
			continue
		}
		break
	}
	var s Settings
	if err := DecodeJSONC(path, src, &s); err != nil {
		return fmt.Errorf("%s: the value does not fit %s (%v); nothing was written", path, key, err)
	}
	return writeAtomic(path, src)
}

// nested is the member text `"a": {"b": value}` for parts a, b.
func nested(parts []string, value json.RawMessage) string {
	q, _ := json.Marshal(parts[0])
	if len(parts) == 1 {
		return string(q) + ": " + string(value)
	}
	return string(q) + ": {" + nested(parts[1:], value) + "}"
}

func splice(src []byte, start, end int, value []byte) []byte {
	out := append([]byte(nil), src[:start]...)
	out = append(out, value...)
	return append(out, src[end:]...)
}

func isString(raw []byte) bool { return bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) }
