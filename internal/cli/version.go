package cli

import (
	"runtime/debug"
	"strings"
)

// devVersion is the version of a build nobody stamped.
const devVersion = "0.1.0-dev"

// buildInfo is what the toolchain recorded in the binary, nil when
// nothing was.
func buildInfo() *debug.BuildInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return info
}

// versionLine is what ply --version prints: the version and commit the
// release build stamped; unstamped, the module version `go install
// …@vX.Y.Z` recorded and the commit a build in a git checkout recorded.
func versionLine(version, commit string, info *debug.BuildInfo) string {
	modified := false
	if info != nil {
		if version == devVersion && strings.HasPrefix(info.Main.Version, "v") {
			version = strings.TrimPrefix(info.Main.Version, "v")
		}
		if commit == "" {
			for _, s := range info.Settings {
				switch s.Key {
				case "vcs.revision":
					commit = s.Value
				case "vcs.modified":
					modified = s.Value == "true"
				}
			}
		}
	}
	if commit == "" {
		return "ply " + version + " (commit unknown)"
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if modified {
		return "ply " + version + " (commit " + commit + ", modified)"
	}
	return "ply " + version + " (commit " + commit + ")"
}
