package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/plyhq/ply/internal/client"
	"github.com/plyhq/ply/internal/llm"
)

func init() {
	registerCommand(slashCommand{name: "/skills", help: "list the skills; type /name [args] to use one", run: (*model).skillsCommand})
}

func (m *model) skillsCommand(string) tea.Cmd {
	sk, ok := probe[SkillRunner](m)
	if !ok {
		return m.unavailable("/skills")
	}
	list := sk.SkillList()
	if len(list) == 0 {
		return m.commit(m.st.dim.Render("no skills: put a folder with a SKILL.md in ~/.ply/skills or the project's .ply/skills"))
	}
	var b strings.Builder
	b.WriteString("Skills (type /name [args] to use one; the model may load them itself):")
	for _, s := range list {
		first, _, _ := strings.Cut(strings.TrimSpace(s.Description), "\n")
		fmt.Fprintf(&b, "\n  %s  %s", m.st.bold.Render("/"+s.Name), m.st.dim.Render(abbreviate(first, max(m.width-len(s.Name)-8, 10))))
		where := s.Source + ": " + s.Path
		if lookupCommand("/"+s.Name) != nil {
			where += " (the built-in /" + s.Name + " comes first: the model can still load it)"
		}
		fmt.Fprintf(&b, "\n    %s", m.st.dim.Render(where))
	}
	return m.commit(b.String())
}

// skillCommand runs /name args for a skill called name, or returns nil
// when there is none: the skill's text goes to the model as the prompt,
// as if typed, and the transcript shows what the user typed.
func (m *model) skillCommand(name, arg string) tea.Cmd {
	sk, ok := probe[SkillRunner](m)
	if !ok {
		return nil
	}
	skill := strings.TrimPrefix(name, "/")
	found := false
	for _, s := range sk.SkillList() {
		found = found || s.Name == skill
	}
	if !found {
		return nil
	}
	if m.busy || m.compacting {
		return m.notIdle(name)
	}
	prompt, err := sk.InvokeSkill(skill, arg)
	if err != nil {
		return m.commit(m.st.err.Render("✗ " + err.Error()))
	}
	typed := strings.TrimSpace(name + " " + arg)
	m.stats.prompts++
	return tea.Batch(m.commit(m.renderUser(typed)), m.start([]llm.Part{{Text: prompt}}, client.UserQuery))
}
