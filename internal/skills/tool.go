package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/tools"
)

// ToolName is the skill tool's name, as Qwen Code names it.
const ToolName = "skill"

// maxListedDescription bounds one skill's line in the tool's description.
const maxListedDescription = 250

// Tool is the skill tool: its description lists every skill by name and
// description, one line each; a call loads one (Set.Load).
//
// It is a read tool: loading a skill reads its instructions and makes its
// folder readable. A skill with allowed-tools grants them too, so its
// load reports them (Grants) and the permission policy asks the user
// first; a load the policy allowed only as a read (confined, when no one
// can approve) grants nothing. Only the user's /name grants unasked. A
// deny or ask rule still wins over what a skill grants.
type Tool struct {
	set  *Set
	desc string
}

// NewTool returns the skill tool over set.
func NewTool(set *Set) *Tool {
	return &Tool{set: set, desc: describe(set.Skills())}
}

func (t *Tool) Name() string        { return ToolName }
func (t *Tool) Description() string { return t.desc }
func (t *Tool) Kind() tools.Kind    { return tools.KindRead }

func (t *Tool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"skill":{"type":"string","description":"The skill's name, exactly as listed, e.g. \"pdf\"."},` +
		`"args":{"type":"string","description":"Optional arguments for the skill."}},` +
		`"required":["skill"],"additionalProperties":false}`)
}

func (t *Tool) Execute(ctx context.Context, args json.RawMessage, _ tools.Output) (tools.Result, error) {
	var in struct {
		Skill string `json:"skill"`
		Args  string `json:"args"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tools.Errorf("INVALID_PARAMS", "reading the arguments: %v", err), nil
	}
	name := strings.TrimSpace(in.Skill)
	if name == "" {
		return tools.Errorf("INVALID_PARAMS", "\"skill\" must name a skill"), nil
	}
	load := t.set.Load
	if tools.Confined(ctx) {
		load = t.set.LoadWithoutGrant
	}
	text, err := load(name, strings.TrimSpace(in.Args))
	if err != nil {
		return tools.Errorf("SKILL_NOT_FOUND", "%s", err.Error()), nil
	}
	return tools.Result{Output: text, Display: fmt.Sprintf("loaded skill %s", name)}, nil
}

// Grants returns the skill a call would load and the allowed-tools the
// load would grant; none for a skill without them or an unknown one.
func (t *Tool) Grants(args json.RawMessage) (name string, rules []string) {
	var in struct {
		Skill string `json:"skill"`
	}
	if json.Unmarshal(args, &in) != nil {
		return "", nil
	}
	name = strings.TrimSpace(in.Skill)
	if sk, ok := t.set.Lookup(name); ok && len(sk.AllowedTools) > 0 {
		return name, slices.Clone(sk.AllowedTools)
	}
	return name, nil
}

// describe is the tool's description: how to use it, then the skills.
func describe(list []Skill) string {
	var b strings.Builder
	b.WriteString("Load a skill: instructions, and often scripts and references, that the user keeps for a kind of task. " +
		"When a skill below fits the task, call this tool with its name before doing anything else for that task; " +
		"its instructions come back as the result, and you then follow them. Use a name exactly as listed. " +
		"Do not load a skill that is already loaded in this conversation.\n\n<available_skills>\n")
	if len(list) == 0 {
		b.WriteString("(none)\n")
	}
	for _, s := range list {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, oneLine(s.Description, maxListedDescription))
	}
	b.WriteString("</available_skills>")
	return b.String()
}

// oneLine folds s onto one line of at most n bytes, cut on a rune
// boundary.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}
