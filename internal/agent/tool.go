package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/tools"
)

// Name is the subagent tool's name.
const Name = "agent"

// Task is one delegated task, as the Runner gets it.
type Task struct {
	Def         Definition
	Description string
	Prompt      string
	// CallID is the parent's call id, to nest the subagent's events.
	CallID string
	// Out receives progress lines while the subagent works; may be nil.
	Out tools.Output
}

// Report is how a subagent's run ended.
type Report struct {
	// Text is the subagent's final answer: what the parent sees.
	Text string
	// Err is set when the run failed (a cap, a loop, a model error); Text
	// may still hold its last words.
	Err       string
	Subtype   string
	Turns     int
	ToolCalls int
	// Worktree, for a subagent with worktree isolation, says where it
	// worked and what it changed there: its branch and a diff summary.
	Worktree string
}

// Runner runs a subagent's loop. It blocks until the loop ends or ctx is
// done.
type Runner interface {
	Run(ctx context.Context, t Task) Report
}

// Tool is the agent tool.
type Tool struct {
	defs   []Definition
	runner Runner
}

// NewTool returns the agent tool offering defs (see Load) run by r.
func NewTool(defs []Definition, r Runner) *Tool {
	return &Tool{defs: defs, runner: r}
}

// Definitions returns the subagents the tool offers.
func (t *Tool) Definitions() []Definition { return t.defs }

func (*Tool) Name() string { return Name }

func (t *Tool) Description() string {
	var b strings.Builder
	b.WriteString("Hand a self-contained task to a subagent, which works with its own context and tools and " +
		"returns one final report; only that report comes back to you. Use it for broad searches and research " +
		"that would fill your context, or for independent parts of the work: several agent calls in one reply " +
		"run in parallel. The subagent sees nothing of this conversation, so the prompt must say everything it " +
		"needs: the goal, what is known, which files matter, and what the report must contain.\n\nSubagents:")
	for _, d := range t.defs {
		fmt.Fprintf(&b, "\n- %s: %s", d.Name, d.Description)
	}
	return b.String()
}

// Kind is agent: the call itself changes nothing; the policy checks each
// call the subagent makes.
func (*Tool) Kind() tools.Kind { return tools.KindAgent }

// ConcurrencySafe is always true: subagents requested together run in
// one parallel batch. Their own unsafe calls are serialised by their own
// schedulers and checked by the shared policy.
func (*Tool) ConcurrencySafe(json.RawMessage) bool { return true }

func (t *Tool) Schema() json.RawMessage {
	names := make([]string, len(t.defs))
	for i, d := range t.defs {
		names[i] = d.Name
	}
	enc, _ := json.Marshal(names)
	bg := ""
	if _, ok := t.runner.(Launcher); ok {
		bg = `"run_in_background":{"type":"boolean","description":"Run the subagent in the background: the call returns its task id at once and ` +
			`its report arrives later as a notification. Use it for work you need not wait for; keep false when your next step needs the report."},`
	}
	return json.RawMessage(`{"type":"object","properties":{` + bg +
		`"description":{"type":"string","minLength":1,"description":"A short (3-5 word) title of the task."},` +
		`"prompt":{"type":"string","minLength":1,"description":"The task, complete and self-contained."},` +
		`"subagent_type":{"type":"string","enum":` + string(enc) + `,"description":"Which subagent runs the task; ` + GeneralPurpose + ` when omitted."}` +
		`},"required":["description","prompt"],"additionalProperties":false}`)
}

func (t *Tool) Execute(ctx context.Context, args json.RawMessage, out tools.Output) (tools.Result, error) {
	var p struct {
		Description  string `json:"description"`
		Prompt       string `json:"prompt"`
		SubagentType string `json:"subagent_type"`
		Background   bool   `json:"run_in_background"`
	}
	if err := json.Unmarshal(args, &p); err != nil {
		return tools.Errorf("INVALID_TOOL_PARAMS", "agent: the arguments do not decode: %v", err), nil
	}
	if strings.TrimSpace(p.Prompt) == "" {
		return tools.Errorf("INVALID_TOOL_PARAMS", "agent: the prompt is empty; say what the subagent must do"), nil
	}
	name := strings.TrimSpace(p.SubagentType)
	if name == "" {
		name = GeneralPurpose
	}
	def, ok := t.lookup(name)
	if !ok {
		return tools.Errorf("INVALID_TOOL_PARAMS", "agent: no subagent named %q; choose one of %s", name, strings.Join(t.names(), ", ")), nil
	}
	task := Task{Def: def, Description: p.Description, Prompt: p.Prompt, CallID: tools.CallID(ctx), Out: out}
	if p.Background {
		return t.launch(ctx, task)
	}
	start := time.Now()
	rep := t.runner.Run(ctx, task)
	if err := ctx.Err(); err != nil {
		return tools.Result{}, err
	}
	took := time.Since(start).Round(100 * time.Millisecond)
	display := fmt.Sprintf("%s: %d turns, %d tool calls, %s", def.Name, rep.Turns, rep.ToolCalls, took)
	if rep.Err != "" {
		msg := fmt.Sprintf("The %s subagent did not finish (%s): %s", def.Name, rep.Subtype, rep.Err)
		if rep.Text != "" {
			msg += "\n\nIts last report before it stopped:\n" + rep.Text
		}
		if rep.Worktree != "" {
			msg += "\n\n" + rep.Worktree
		}
		return tools.Result{IsError: true, ErrorType: "SUBAGENT_FAILED", Output: msg, Display: display}, nil
	}
	text := strings.TrimSpace(rep.Text)
	if text == "" {
		text = fmt.Sprintf("The %s subagent finished without writing a report.", def.Name)
	}
	if rep.Worktree != "" {
		text += "\n\n" + rep.Worktree
	}
	return tools.Result{Output: text, Display: display}, nil
}

func (t *Tool) lookup(name string) (Definition, bool) {
	for _, d := range t.defs {
		if d.Name == name {
			return d, true
		}
	}
	return Definition{}, false
}

func (t *Tool) names() []string {
	out := make([]string, len(t.defs))
	for i, d := range t.defs {
		out[i] = d.Name
	}
	return out
}

// toolAliases maps the tool names other agents' definition files use to
// ply's, so that a definition written for them works unchanged.
var toolAliases = map[string]string{
	"Read": "read_file", "Write": "write_file", "Edit": "edit", "MultiEdit": "edit",
	"Bash": "run_shell_command", "Grep": "grep_search", "Glob": "glob", "LS": "list_directory",
	"WebFetch": "web_fetch", "TodoWrite": "todo_write", "ReadManyFiles": "read_many_files",
}

// Resolve maps a definition's tool names to the names in available: an
// alias becomes ply's name, the agent tool is never included (no
// recursion), and an empty list means every available tool. Unknown names
// are returned separately, for a warning.
func Resolve(def Definition, available []string) (names, unknown []string) {
	has := map[string]bool{}
	for _, n := range available {
		has[n] = true
	}
	if len(def.Tools) == 0 {
		for _, n := range available {
			if n != Name {
				names = append(names, n)
			}
		}
		return names, nil
	}
	for _, n := range def.Tools {
		if a, ok := toolAliases[n]; ok {
			n = a
		}
		switch {
		case n == Name || slices.Contains(names, n):
		case has[n]:
			names = append(names, n)
		default:
			unknown = append(unknown, n)
		}
	}
	return names, unknown
}
