package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// UI is the "ui" entry: how the interactive UI looks.
type UI struct {
	// Theme is "dark" or "light"; "" is dark. NO_COLOR overrides it.
	Theme string `json:"theme"`
}

func (u UI) over(o UI) UI {
	if o.Theme != "" {
		u.Theme = o.Theme
	}
	return u
}

// SaveTheme sets "ui": {"theme": theme} in the settings file at path,
// creating the file if needed. The rest of the file, comments included,
// stays as it was; the "ui" object itself is written anew.
func SaveTheme(path, theme string) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("settings: not saving the theme: %s is a symbolic link", path)
	}
	src, mode, err := ReadToReplace(path)
	if err != nil {
		return fmt.Errorf("settings: saving the theme: %w", err)
	}
	out, err := setUI(path, src, theme)
	if err != nil {
		return err
	}
	if err := WriteReplacing(path, out, mode); err != nil {
		return fmt.Errorf("settings: saving the theme: %w", err)
	}
	return nil
}

// setUI returns src with its top-level "ui" value replaced by (or given)
// the theme.
func setUI(path string, src []byte, theme string) ([]byte, error) {
	clean := StripJSONC(src)
	if len(bytes.TrimSpace(clean)) == 0 {
		return fmt.Appendf(nil, "{\n  \"ui\": {\"theme\": %q}\n}\n", theme), nil
	}
	var top map[string]json.RawMessage
	if err := DecodeJSONC(path, src, &top); err != nil {
		return nil, fmt.Errorf("settings: not saving the theme: %w", err)
	}
	ui := map[string]any{}
	if raw, ok := top["ui"]; ok {
		if err := json.Unmarshal(raw, &ui); err != nil {
			return nil, fmt.Errorf("settings: not saving the theme: %s: \"ui\" is not an object", path)
		}
	}
	if ui == nil { // "ui": null
		ui = map[string]any{}
	}
	ui["theme"] = theme
	val, err := json.Marshal(ui)
	if err != nil {
		return nil, err
	}
	start, end, open, err := locateKey(clean, "ui")
	if err != nil {
		return nil, fmt.Errorf("settings: not saving the theme: %s: %w", path, err)
	}
	var out []byte
	switch {
	case start >= 0:
		out = append(append(append(out, src[:start]...), val...), src[end:]...)
	case len(top) == 0:
		out = append(append(append(out, src[:open+1]...), fmt.Sprintf("\n  \"ui\": %s\n", val)...), src[open+1:]...)
	default:
		out = append(append(append(out, src[:open+1]...), fmt.Sprintf("\n  \"ui\": %s,", val)...), src[open+1:]...)
	}
	return out, nil
}

// locateKey finds a top-level key's value in clean JSON: its start and
// end offsets (-1 when absent), and the offset of the object's "{".
func locateKey(clean []byte, key string) (start, end, open int, err error) {
	dec := json.NewDecoder(bytes.NewReader(clean))
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return -1, -1, -1, errors.New("the file is not a JSON object")
	}
	open = int(dec.InputOffset()) - 1
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return -1, -1, -1, err
		}
		after := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return -1, -1, -1, err
		}
		if k == key {
			end = int(dec.InputOffset())
			start = end - len(raw)
			if start < after {
				return -1, -1, -1, errors.New("cannot place the value")
			}
			return start, end, open, nil
		}
	}
	return -1, -1, open, nil
}
