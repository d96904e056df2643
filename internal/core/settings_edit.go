package core

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/plyhq/ply/internal/info"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/settings"
)

// ConfigSettings lists the settings /config can set, each with the value
// the files give it now and the file it comes from (the project's, when
// the folder is trusted, over the user's). The files are read again, so
// edits made since start-up show.
func (c *Session) ConfigSettings() []info.Setting {
	user, project := c.SettingsFile("user"), ""
	if c.cfg.Trusted {
		project = c.SettingsFile("project")
	}
	var out []info.Setting
	for _, k := range settings.Keys() {
		s := info.Setting{Name: k.Name, Kind: k.Kind, UserOnly: k.UserOnly}
		for _, f := range []string{user, project} {
			if f == "" || (k.UserOnly && f == project) {
				continue
			}
			if v, ok := settings.ValueIn(f, k.Name); ok {
				s.Value, s.From = string(v), f
			}
		}
		out = append(out, s)
	}
	return out
}

// SetSetting sets the setting name to text, as typed, in the user's
// settings file or the project's (where: "user" or "project"), and
// applies it to this session where it can: the approval mode, the model
// and its effort change now; the others when ply next starts, which note
// says. Nothing is written when the name, the value or the place is
// wrong.
func (c *Session) SetSetting(name, text, where string) (note string, err error) {
	k, path, err := c.settingTarget(name, where)
	if err != nil {
		return "", err
	}
	value, err := k.Parse(text)
	if err != nil {
		return "", err
	}
	if name == "approvalMode" {
		var mode string
		_ = json.Unmarshal(value, &mode)
		if _, err := permission.ParseMode(mode); err != nil {
			return "", err
		}
	}
	if err := settings.SetKey(path, name, value); err != nil {
		return "", err
	}
	return c.applySetting(name, value), nil
}

// UnsetSetting removes the setting name from the user's or the project's
// file; ok false when that file does not set it.
func (c *Session) UnsetSetting(name, where string) (ok bool, err error) {
	_, path, err := c.settingTarget(name, where)
	if err != nil {
		return false, err
	}
	return settings.UnsetKey(path, name)
}

// settingTarget checks name and where, and returns the file to edit.
func (c *Session) settingTarget(name, where string) (settings.Key, string, error) {
	k, err := settings.LookupKey(name)
	if err != nil {
		return k, "", err
	}
	path := c.SettingsFile(where)
	switch {
	case path == "" && where == "user":
		return k, "", errors.New("ply has no home (PLY_HOME), so there is no user settings file")
	case path == "":
		return k, "", fmt.Errorf("no settings file %q: say user or project", where)
	case where == "project" && k.UserOnly:
		return k, "", fmt.Errorf("%s is read from your own settings only (a repository must not decide it): set it without --project", name)
	case where == "project" && !c.cfg.Trusted:
		return k, "", errors.New("this folder is not trusted, so its .ply/settings.json is not read: trust it (ply trust) or set it without --project")
	}
	return k, path, nil
}

// applySetting applies a saved setting to the running session where it
// can, and says what happened.
func (c *Session) applySetting(name string, value json.RawMessage) string {
	var s string
	_ = json.Unmarshal(value, &s)
	var err error
	switch name {
	case "approvalMode":
		err = c.SetMode(s)
	case "model.name":
		err = c.SetModel(s)
	case "model.effort":
		err = c.SetEffort(s)
	case "ui.theme":
		return "the palette changes now"
	default:
		return "it takes effect when ply next starts"
	}
	if err != nil {
		return "this session goes on as it was: " + err.Error()
	}
	return "this session uses it now"
}
