package core

import (
	"context"
	"fmt"
	"io"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/skills"
	"github.com/plyhq/ply/internal/tools"
)

// loadSkills finds the user's skills and, in a trusted workspace, the
// project's; reports the ones left out; and registers the skill tool
// when there is any skill to load.
func loadSkills(cfg *Config, ws *tools.Workspace, policy *permission.Policy, reg *tools.Registry, notices io.Writer) *skills.Set {
	list, errs := skills.Load(skills.Roots(cfg.Home, cfg.Workspace, cfg.Trusted))
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
func (c *Session) skillNames() []string {
	if _, ok := c.reg.Lookup(skills.ToolName); !ok {
		return nil
	}
	return c.skills.Names()
}

// onUserQuery runs as each user prompt is sent, whatever the entry
// layer: the prompt hooks run (and may refuse it), the skills of the turn
// that ended stop being active, then the checkpoint is taken.
func (c *Session) onUserQuery(ctx context.Context, parts []llm.Part) ([]llm.Part, error) {
	parts, err := c.promptHooks(ctx, parts)
	if err != nil {
		return nil, err
	}
	c.skills.NewTurn()
	if err := c.front.NewTurn(); err != nil {
		fmt.Fprintf(c.notices, "ply: warning: %v\n", err)
	}
	return c.ideContext(c.cp.onUserQuery(ctx, parts)), nil
}
