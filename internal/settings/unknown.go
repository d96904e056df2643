package settings

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/spell"
)

// UnknownKey is a key of a settings file that ply does not read: a
// misspelling, or another agent's setting. Near is the closest key ply
// knows at that place ("" when none is close).
type UnknownKey struct {
	Path string // the file
	Key  string // dotted: "model.maxToolCalls"
	Near string
}

func (u UnknownKey) String() string {
	s := fmt.Sprintf("%s: unknown setting %q is ignored", u.Path, u.Key)
	if u.Near != "" {
		s += fmt.Sprintf(" (did you mean %q?)", u.Near)
	}
	return s
}

// unknownKeys lists the keys of the settings object src (comments and
// trailing commas already stripped) that no field of Settings reads, at
// the top level and inside the sections that are objects of known shape.
func unknownKeys(path string, src []byte) []UnknownKey {
	var out []UnknownKey
	walkKeys(src, reflect.TypeFor[Settings](), "", func(key, near string) {
		out = append(out, UnknownKey{Path: path, Key: key, Near: near})
	})
	return out
}

// walkKeys reports each key of the object raw that t (a struct) has no
// field for, and descends into the fields that are structs or maps of
// structs. Values that are not objects are left to the decoder.
func walkKeys(raw []byte, t reflect.Type, prefix string, report func(key, near string)) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return
	}
	fields := jsonFields(t)
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
	}
	slices.Sort(known)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		ft, ok := fields[k]
		if !ok {
			if k == "$schema" {
				continue
			}
			report(prefix+k, nearest(k, known))
			continue
		}
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct:
			walkKeys(obj[k], ft, prefix+k+".", report)
		case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
			var entries map[string]json.RawMessage
			if json.Unmarshal(obj[k], &entries) == nil {
				for name, v := range entries {
					walkKeys(v, ft.Elem(), prefix+k+"."+name+".", report)
				}
			}
		}
	}
}

// jsonFields maps the JSON names of t's fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// nearest is the known key closest to key, or "".
func nearest(key string, known []string) string {
	near := spell.Closest(key, known, 1, spell.Lower, func(cand string, d int) bool {
		return d <= max(2, len(cand)/4)
	})
	if len(near) == 0 {
		return ""
	}
	return near[0]
}
