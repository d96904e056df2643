package core

import (
	"github.com/plyhq/ply/internal/permission"
	"github.com/plyhq/ply/internal/tools"
)

// SetQuestionAsker sets who answers the model's ask_user_question calls:
// the entry layer's user (the TUI's dialog, the ACP client). Without one
// (ply -p, the SDK) every call is refused with a result telling the model
// to go on by its own judgement.
func (c *Session) SetQuestionAsker(a tools.QuestionAsker) {
	if t, ok := c.reg.Lookup(tools.AskUserQuestionName); ok {
		t.(*tools.AskUserQuestion).SetAsker(a)
	}
}

// withholdQuestions withholds ask_user_question where no one can answer
// (ply -p, the SDK): it is not declared to the model, which saves its
// declaration in every request, and a call of it all the same is refused
// with a result telling the model to go on by itself.
func withholdQuestions(cfg *Config, policy *permission.Policy, reg *tools.Registry) {
	if cfg.Interactive {
		return
	}
	if _, ok := reg.Lookup(tools.AskUserQuestionName); !ok {
		return
	}
	policy.Withhold(tools.AskUserQuestionName, tools.AskUserQuestionName+" is not offered in this run: "+tools.NoUserAnswers)
	reg.Remove(tools.AskUserQuestionName)
}
