package core

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/plyhq/ply/internal/session"
	"github.com/plyhq/ply/internal/sysprompt"
)

// snapshotBudget is how long the repository snapshot may take from the
// start of New. It runs beside the rest of the start-up; git status
// on a small repository answers in a few milliseconds, and past the
// budget the prompt says it was skipped rather than hold the first
// request.
const snapshotBudget = 50 * time.Millisecond

// startSnapshot begins the repository snapshot, git getting env (the
// environment of every child process, secrets withheld); the function it
// returns waits for it, never past the budget.
func startSnapshot(ctx context.Context, dir string, trusted bool, env []string) func() *sysprompt.Repo {
	ctx, cancel := context.WithTimeout(ctx, snapshotBudget)
	done := make(chan *sysprompt.Repo, 1)
	go func() { done <- sysprompt.Snapshot(ctx, dir, trusted, env) }()
	return func() *sysprompt.Repo {
		defer cancel()
		return <-done
	}
}

// sandboxSummary is the prompt's line on --sandbox, "" without it.
func sandboxSummary(o Sandbox) string {
	if !o.Enabled {
		return ""
	}
	s := "shell commands may write only in the workspace and the temp directory"
	if o.Network {
		return s + "; they may use the network"
	}
	return s + ", and may not use the network"
}

// promptFacts are what the system prompt says that holds only when it is
// built: the date and the repository snapshot (with its branch). The
// transcript records those of the session's prompt, and a resumed
// session shows them again, so that its system prompt is the same, byte
// for byte, and the provider's prompt cache still holds; what changed
// meanwhile goes in a note with the next message instead.
type promptFacts struct {
	Date time.Time       `json:"date"`
	Repo *sysprompt.Repo `json:"repo,omitempty"`
}

// keepPromptFacts makes env, built from the facts of now, show the facts
// the session's transcript recorded for its prompt, and sets the
// session's resume note to what differs from the facts the model was
// told last. A session whose transcript recorded none (a new one, or one
// an older ply wrote) keeps env's, and records them.
func keepPromptFacts(sess *opened, env *sysprompt.Env, log *slog.Logger) {
	now := promptFacts{Date: env.Now, Repo: env.Repo}
	var first promptFacts
	if sess.facts == nil || json.Unmarshal(sess.facts, &first) != nil || first.Date.IsZero() {
		if sess.facts != nil {
			log.Warn("the recorded facts of the system prompt do not decode; building it anew")
		}
		sess.w.AppendPromptFacts(now)
		return
	}
	env.Now, env.Repo = first.Date, first.Repo
	told := first
	if sess.told != nil {
		var last promptFacts
		if err := json.Unmarshal(sess.told, &last); err == nil {
			told = last
		}
	}
	if now.Repo != nil && !now.Repo.Git && told.Repo != nil && told.Repo.Git {
		log.Info("the repository snapshot on resuming has no git status to compare", "notes", now.Repo.Notes)
	}
	if note := told.Repo.Changes(now.Repo); note != "" {
		sess.note, sess.noteFacts = note, &now
	}
}

// switchPrompt gives the chat the system prompt of the session /resume
// switched to, tr: built from the facts it recorded, with a note of what
// changed since queued for the next message; notes queued for the session
// left are dropped. A transcript without facts records those of a
// snapshot taken now.
func (c *Session) switchPrompt(tr *session.Transcript) {
	m := c.modes
	if m == nil {
		return
	}
	env := m.env
	env.Now = time.Now()
	env.Repo = startSnapshot(context.Background(), c.ws.Root(), c.cfg.Trusted, c.cfg.ChildEnv)()
	env.Mode = c.policy.Mode().String()
	env.Tools = c.reg.OfferedNames()
	sess := c.sess
	sess.facts, sess.told, sess.note, sess.noteFacts = tr.PromptFacts, tr.LastFacts, "", nil
	keepPromptFacts(sess, &env, c.log)
	m.mu.Lock()
	m.env = env
	m.queued, m.sent = nil, nil
	m.mu.Unlock()
	m.chat.SetSystem(sysprompt.Build(env))
	if c.client != nil {
		c.client.SetDateShown(env.Now)
	}
	if note, facts, w := sess.note, sess.noteFacts, sess.w; note != "" {
		m.queue(note, func() { w.AppendPromptFacts(facts) })
	}
}
