package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/skills"
	"github.com/plyhq/ply/internal/tools"
	"github.com/plyhq/ply/internal/tui"
)

// loadSkills finds the user's skills and, in a trusted workspace, the
// project's; reports the ones left out; and registers the skill tool
// when there is any skill to load.
func loadSkills(cfg *config, ws *tools.Workspace, policy *permission.Policy, reg *tools.Registry, notices io.Writer) *skills.Set {
	list, errs := skills.Load(skills.Roots(cfg.home, cfg.workspace, cfg.trust.trusted))
	for _, e := range errs {
		fmt.Fprintf(notices, "ply: warning: skills: %v\n", e)
	}
	set := skills.NewSet(list, ws, policy)
	if len(list) > 0 {
		reg.Register(skills.NewTool(set))
	}
	return set
}

// reopenSkills makes the folders of the skills a resumed history loaded
// readable again.
func reopenSkills(set *skills.Set, history []llm.Message) {
	var calls, texts []string
	for _, m := range history {
		for _, p := range m.Parts {
			switch {
			case p.Call != nil && p.Call.Name == skills.ToolName:
				calls = append(calls, p.Call.Args)
			case m.Role == llm.RoleUser && p.Text != "":
				texts = append(texts, p.Text)
			}
		}
	}
	set.Reopen(skills.LoadedIn(calls, texts)...)
}

// skillNames lists the skills when the model is offered the skill tool.
func (c *core) skillNames() []string {
	if _, ok := c.reg.Lookup(skills.ToolName); !ok {
		return nil
	}
	return c.skills.Names()
}

// onUserQuery runs as each user prompt is sent, whatever the entry
// layer: the prompt hooks run (and may refuse it), the skills of the turn
// that ended stop being active, then the checkpoint is taken.
func (c *core) onUserQuery(ctx context.Context, parts []llm.Part) ([]llm.Part, error) {
	parts, err := c.promptHooks(ctx, parts)
	if err != nil {
		return nil, err
	}
	c.skills.NewTurn()
	c.front.newTurn() // tui_hooks.go: custom commands' front matter
	return c.cp.onUserQuery(ctx, parts), nil
}

// addSkills gives the interactive UI /skills and /name.
func addSkills(t *tui.Config, c *core) {
	t.Skills = func() []tui.SkillInfo {
		var out []tui.SkillInfo
		for _, s := range c.skills.Skills() {
			out = append(out, tui.SkillInfo{Name: s.Name, Description: s.Description, Path: s.Path, Source: s.Source})
		}
		return out
	}
	t.InvokeSkill = c.skills.Invoke
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
