package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/customcmd"
	"github.com/plyhq/ply/internal/settings"
	"github.com/plyhq/ply/internal/skills"
)

// What an untrusted workspace's own configuration would have loaded, for
// the notice that says what was left out (Config.Trusted).

// IgnoredConfig describes the project configuration an untrusted
// workspace has, e.g. ".ply/settings.json (approvalMode, hooks, 2 MCP
// servers) and 1 agent in .ply/agents"; "" when there is none.
func IgnoredConfig(workspace string) string {
	var parts []string
	if src, err := os.ReadFile(settings.ProjectFile(workspace)); err == nil || !errors.Is(err, fs.ErrNotExist) {
		var keys map[string]json.RawMessage
		switch {
		case err != nil:
			parts = append(parts, ".ply/settings.json (unreadable)")
		case settings.DecodeJSONC("", src, &keys) != nil:
			parts = append(parts, ".ply/settings.json (which does not parse)")
		case len(keys) > 0:
			parts = append(parts, ".ply/settings.json ("+describeKeys(keys)+")")
		}
	}
	if n := countAgents(ProjectAgentsDir(workspace)); n > 0 {
		parts = append(parts, plural(n, "agent")+" in .ply/agents")
	}
	parts = append(parts, ignoredSkills(workspace)...)
	if cmds, _ := customcmd.Load(customcmd.Dir{Path: filepath.Join(workspace, ".ply", "commands")}); len(cmds) > 0 {
		parts = append(parts, plural(len(cmds), "command")+" in .ply/commands")
	}
	return strings.Join(parts, " and ")
}

// describeKeys names a settings file's top-level keys, counting servers.
// The file is anyone's: the list is capped, and so is each name.
func describeKeys(keys map[string]json.RawMessage) string {
	const maxNames, maxName = 8, 32
	var names []string
	for k, v := range keys {
		if r := []rune(k); len(r) > maxName {
			k = string(r[:maxName]) + "…"
		}
		if k == "mcpServers" {
			var servers map[string]json.RawMessage
			if json.Unmarshal(v, &servers) == nil {
				names = append(names, plural(len(servers), "MCP server"))
				continue
			}
		}
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) > maxNames {
		names = append(names[:maxNames], fmt.Sprintf("%d more", len(names)-maxNames))
	}
	return strings.Join(names, ", ")
}

func countAgents(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			n++
		}
	}
	return n
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ignoredSkills describes the skills an untrusted workspace has, for the
// notice of what it left out: "2 skills in .claude/skills".
func ignoredSkills(workspace string) []string {
	var out []string
	for _, d := range skills.ProjectDirs {
		entries, err := os.ReadDir(filepath.Join(workspace, filepath.FromSlash(d)))
		if err != nil {
			continue
		}
		n := 0
		for _, e := range entries {
			if _, err := os.Stat(filepath.Join(workspace, filepath.FromSlash(d), e.Name(), skills.FileName)); err == nil {
				n++
			}
		}
		if n > 0 {
			out = append(out, plural(n, "skill")+" in "+d)
		}
	}
	return out
}
