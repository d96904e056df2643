package skills

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// ReadRoots makes a folder readable by the read tools for the rest of the
// session (tools.Workspace).
type ReadRoots interface {
	AddReadOnly(dir string) error
}

// Granter allows permission rules on behalf of a source until revoked
// (permission.Policy).
type Granter interface {
	Grant(source string, rules []string) error
	Revoke(source string)
}

// Set is a session's skills and what loading them granted. It is safe for
// concurrent use; a nil *Set has no skills.
//
// A skill is active from the moment it is loaded until the user's next
// prompt: for the rest of the turn that loaded it (the model's calls
// that follow, however many rounds) its allowed-tools are allowed, and
// a new prompt from the user starts without them. A skill the user
// invoked as /name is loaded just before that prompt is sent, and so is
// active for the turn the prompt starts. A skill the model loads grants
// only when its load was approved (the permission policy asks first);
// LoadWithoutGrant loads one without. Its folder stays readable for the
// rest of the session either way.
type Set struct {
	skills []Skill
	reads  ReadRoots
	grants Granter

	mu       sync.Mutex
	readable map[string]bool
	active   map[string]bool // granted for the current turn
	pending  map[string]bool // granted by /name, for the turn it starts
}

// NewSet returns the set of list (as Load returns it). reads and grants
// may be nil: loading then grants nothing of that kind.
func NewSet(list []Skill, reads ReadRoots, grants Granter) *Set {
	return &Set{skills: list, reads: reads, grants: grants,
		readable: map[string]bool{}, active: map[string]bool{}, pending: map[string]bool{}}
}

// Skills returns the skills, sorted by name.
func (s *Set) Skills() []Skill {
	if s == nil {
		return nil
	}
	return slices.Clone(s.skills)
}

// Names returns the skills' names, sorted.
func (s *Set) Names() []string {
	var out []string
	for _, sk := range s.Skills() {
		out = append(out, sk.Name)
	}
	return out
}

// Lookup returns the skill named name.
func (s *Set) Lookup(name string) (Skill, bool) {
	if s == nil {
		return Skill{}, false
	}
	i := slices.IndexFunc(s.skills, func(sk Skill) bool { return sk.Name == name })
	if i < 0 {
		return Skill{}, false
	}
	return s.skills[i], true
}

// Active returns the names of the skills whose allowed-tools are granted
// now, sorted.
func (s *Set) Active() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n := range s.active {
		out = append(out, n)
	}
	for n := range s.pending {
		if !s.active[n] {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Load activates the skill named name for the model (the skill tool) and
// returns the text the model reads: where the skill's folder is, what it
// may use unasked, and its instructions with args.
func (s *Set) Load(name, args string) (string, error) {
	return s.load(name, args, loadGrant)
}

// LoadWithoutGrant is Load for a load no one approved: the skill's
// folder becomes readable and its text is returned, but its
// allowed-tools are not granted, and the text says so.
func (s *Set) LoadWithoutGrant(name, args string) (string, error) {
	return s.load(name, args, loadNoGrant)
}

// loadBy says who loads a skill and what the load grants.
type loadBy uint8

const (
	loadGrant   loadBy = iota // the model, approved: granted for this turn
	loadByUser                // /name: granted for the turn its prompt starts
	loadNoGrant               // the model, unapproved: nothing granted
)

// Invoke activates the skill named name for the user's /name args and
// returns the prompt to send: the command as typed, then the skill's
// text as Load gives it. The skill is active for the turn that prompt
// starts.
func (s *Set) Invoke(name, args string) (string, error) {
	text, err := s.load(name, args, loadByUser)
	if err != nil {
		return "", err
	}
	typed := "/" + name
	if args != "" {
		typed += " " + args
	}
	return fmt.Sprintf("%s\n\n<skill name=%q>\n%s\n</skill>", typed, name, text), nil
}

func (s *Set) load(name, args string, by loadBy) (string, error) {
	sk, ok := s.Lookup(name)
	if !ok {
		if s == nil || len(s.skills) == 0 {
			return "", fmt.Errorf("skill %q not found: no skills are available", name)
		}
		return "", fmt.Errorf("skill %q not found; available skills: %s", name, strings.Join(s.Names(), ", "))
	}
	var notes []string
	s.mu.Lock()
	if s.reads != nil && !s.readable[sk.Dir] {
		if err := s.reads.AddReadOnly(sk.Dir); err != nil {
			notes = append(notes, fmt.Sprintf("Its folder could not be made readable: %v", err))
		} else {
			s.readable[sk.Dir] = true
		}
	}
	granted := false
	switch {
	case len(sk.AllowedTools) == 0:
	case by == loadNoGrant:
		notes = append(notes, fmt.Sprintf("Its allowed-tools (%s) were not granted: no one could approve that in this mode, so each of those calls is checked as usual and may be refused.",
			strings.Join(sk.AllowedTools, ", ")))
	case s.grants != nil:
		granted = true
		if err := s.grants.Grant(grantSource(name), sk.AllowedTools); err != nil {
			notes = append(notes, fmt.Sprintf("Some of its allowed-tools could not be used: %v", err))
		}
		if by == loadByUser {
			s.pending[name] = true
		} else {
			s.active[name] = true
		}
	}
	s.mu.Unlock()
	return render(sk, args, granted, notes), nil
}

// NewTurn ends the skills active in the turn that just ended: their
// allowed-tools need asking again. Skills invoked by the user for the
// prompt being sent become the active ones. Call it as each user prompt
// is sent.
func (s *Set) NewTurn() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for n := range s.active {
		if !s.pending[n] && s.grants != nil {
			s.grants.Revoke(grantSource(n))
		}
	}
	s.active, s.pending = s.pending, map[string]bool{}
}

func grantSource(name string) string { return "skill " + name }

// Reopen makes the folders of the named skills readable again, for a
// resumed session whose history loaded them: a folder stays readable for
// the whole session. Their allowed-tools are not granted again; the turn
// that loaded them is over. Unknown names are skipped.
func (s *Set) Reopen(names ...string) {
	if s == nil || s.reads == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		if sk, ok := s.Lookup(n); ok && !s.readable[sk.Dir] && s.reads.AddReadOnly(sk.Dir) == nil {
			s.readable[sk.Dir] = true
		}
	}
}

// invokedRE finds a skill the user invoked in a prompt Invoke built.
var invokedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n<skill name="([a-z0-9_-]{1,64})">\n`) })

// LoadedIn returns the names of the skills a conversation loaded: by the
// skill tool's calls (their arguments) and by the user's /name prompts
// (texts, as Invoke builds them).
func LoadedIn(calls []string, texts []string) []string {
	var out []string
	for _, args := range calls {
		var in struct {
			Skill string `json:"skill"`
		}
		if json.Unmarshal([]byte(args), &in) == nil && in.Skill != "" {
			out = append(out, strings.TrimSpace(in.Skill))
		}
	}
	for _, t := range texts {
		for _, m := range invokedRE().FindAllStringSubmatch(t, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// render is the text a loaded skill gives the model.
func render(sk Skill, args string, granted bool, notes []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Base directory for this skill: %s\n", sk.Dir)
	b.WriteString("Resolve the relative paths the skill mentions (scripts, references) from that directory; it is readable for the rest of the session.\n")
	if granted {
		fmt.Fprintf(&b, "Until the user's next prompt, these run without asking: %s\n", strings.Join(sk.AllowedTools, ", "))
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	body := sk.Body
	switch {
	case strings.Contains(body, "$ARGUMENTS"):
		body = strings.ReplaceAll(body, "$ARGUMENTS", args)
	case args != "":
		body += "\n\nARGUMENTS: " + args
	}
	b.WriteString("\n" + body)
	return b.String()
}
