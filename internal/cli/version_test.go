package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	vcs := func(rev, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified},
		}}
	}
	for _, tc := range []struct {
		name            string
		version, commit string
		info            *debug.BuildInfo
		want            string
	}{
		{"stamped by the release build", "1.2.3", "0123456789abcdef0123", nil, "ply 1.2.3 (commit 0123456789ab)"},
		{"stamped wins over build info", "1.2.3", "abc", vcs("fff", "false"), "ply 1.2.3 (commit abc)"},
		{"go install at a version", devVersion, "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "ply 1.4.0 (commit unknown)"},
		{"go build in a checkout", devVersion, "", vcs("89abcdef0123456789", "false"), "ply " + devVersion + " (commit 89abcdef0123)"},
		{"a checkout with changes", devVersion, "", vcs("89abcdef0123456789", "true"), "ply " + devVersion + " (commit 89abcdef0123, modified)"},
		{"nothing known", devVersion, "", nil, "ply " + devVersion + " (commit unknown)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionLine(tc.version, tc.commit, tc.info); got != tc.want {
				t.Errorf("versionLine = %q, want %q", got, tc.want)
			}
		})
	}
}

// --help states what each platform confines, as the README's table does.
func TestHelpStatesPlatforms(t *testing.T) {
	u := usage()
	for _, want := range []string{"Platforms:", "Linux", "macOS", "Seatbelt", "Windows", "--allow-unsandboxed", "job object"} {
		if !strings.Contains(u, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}
