package settings

import "path/filepath"

// ShellEnvironment is the "shellEnvironment" setting: which variables of
// ply's environment the processes it starts get, beyond the default that
// withholds secrets.
type ShellEnvironment struct {
	// Include lists names or globs of variables passed although their
	// names look secret.
	Include []string `json:"include"`
	// Exclude lists names or globs of variables never passed.
	Exclude []string `json:"exclude"`
	// Set gives the processes these variables.
	Set map[string]string `json:"set"`
}

// IsZero reports whether e adjusts nothing.
func (e ShellEnvironment) IsZero() bool {
	return len(e.Include) == 0 && len(e.Exclude) == 0 && len(e.Set) == 0
}

// User returns the settings of the user's own file among files, as Load
// returned them for home; the zero Settings when there is none. Settings
// that a cloned repository must not decide (webFetch, shellEnvironment,
// tools.webSearch, allowUnsandboxed, telemetry) are read from it alone.
func User(home string, files []File) Settings {
	if home == "" {
		return Settings{}
	}
	want := filepath.Join(home, "settings.json")
	for _, f := range files {
		if f.Path == want {
			return f.Settings
		}
	}
	return Settings{}
}

// Ignored names the user-only settings that files other than the user's
// set, as "path: key" lines for a warning; nil when there are none.
func Ignored(home string, files []File) []string {
	user := filepath.Join(home, "settings.json")
	var out []string
	for _, f := range files {
		if home != "" && f.Path == user {
			continue
		}
		if len(f.Settings.WebFetch.AllowPrivate) > 0 {
			out = append(out, f.Path+": webFetch.allowPrivate")
		}
		if f.Settings.Tools.WebSearch.Provider != "" {
			out = append(out, f.Path+": tools.webSearch")
		}
		if !f.Settings.ShellEnvironment.IsZero() {
			out = append(out, f.Path+": shellEnvironment")
		}
		if !f.Settings.Telemetry.IsZero() {
			out = append(out, f.Path+": telemetry")
		}
		if f.Settings.AllowUnsandboxed {
			out = append(out, f.Path+": allowUnsandboxed")
		}
	}
	return out
}
