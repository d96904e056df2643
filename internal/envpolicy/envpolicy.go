// Package envpolicy decides which environment variables the processes ply
// starts may see: shell commands, hooks and MCP servers. Secrets stay in
// ply: by default a child gets ply's environment without any variable whose
// name looks like it holds a secret (it contains KEY, SECRET, TOKEN,
// PASSWORD, PASSWD or CREDENTIAL, in any case) and without the variables ply
// read a credential from (such as a provider's apiKeyEnv), whatever their
// names. The user's settings adjust that with include, exclude and set;
// CDPATH is never passed on.
//
// It owns the decision, and Protect, which keeps those children out of
// ply's own memory and initial environment; it starts nothing and reads no
// settings file.
package envpolicy

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
)

// secretWords are the name fragments that mark a variable as a secret.
var secretWords = []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL"}

// notSecret are names that contain a secret word but are known to hold
// none; they are kept so that common tools behave as usual.
var notSecret = map[string]bool{
	"KEYTIMEOUT":             true, // zsh: the key sequence timeout
	"TOKENIZERS_PARALLELISM": true, // Hugging Face tokenizers: true or false
}

// SecretName reports whether a variable of this name is withheld by default
// because its name looks like it holds a secret.
func SecretName(name string) bool {
	if notSecret[name] {
		return false
	}
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// Config adjusts the default policy. Only the user's own settings should
// fill Include, Exclude and Set: a project file could otherwise hand the
// user's secrets to the commands its model runs.
type Config struct {
	// Include lists names or globs (path.Match syntax: *, ?, [...];
	// case-sensitive, as variable names are) of
	// variables children get although their names look secret. A glob
	// never lets through a variable ply read a credential from; naming it
	// exactly does.
	Include []string
	// Exclude lists names or globs of variables children never get; it
	// beats Include.
	Exclude []string
	// Set gives children these variables with these values, over
	// everything else but CDPATH, which no child gets.
	Set map[string]string
	// Credentials names the variables ply read a credential from. They
	// are withheld whatever their names.
	Credentials []string
}

// Policy is a compiled Config. The zero value is not usable; use New or
// Default.
type Policy struct {
	cfg   Config
	creds map[string]bool
}

// New checks cfg's globs and returns its policy.
func New(cfg Config) (*Policy, error) {
	for _, list := range [][]string{cfg.Include, cfg.Exclude} {
		for _, g := range list {
			if _, err := path.Match(g, ""); err != nil || g == "" {
				return nil, fmt.Errorf("envpolicy: %q is not a variable name or glob", g)
			}
		}
	}
	for k := range cfg.Set {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, fmt.Errorf("envpolicy: %q cannot be the name of a variable", k)
		}
	}
	p := &Policy{cfg: cfg, creds: map[string]bool{}}
	for _, c := range cfg.Credentials {
		if c != "" {
			p.creds[c] = true
		}
	}
	return p, nil
}

// Default is the policy without any adjustment: what a child gets when
// nobody configured anything.
func Default() *Policy { return &Policy{creds: map[string]bool{}} }

// neverPassed are variables no child gets, whatever the settings say.
// CDPATH only changes where cd goes: with it, "cd src" may land in any
// directory the list names, outside the workspace, which the shell
// classifier could not see. Nothing needs it in a command run for the
// model.
var neverPassed = map[string]bool{"CDPATH": true}

// Allowed reports whether children get the variable named name from ply's
// environment.
func (p *Policy) Allowed(name string) bool {
	if neverPassed[name] || matchAny(p.cfg.Exclude, name) {
		return false
	}
	if slices.Contains(p.cfg.Include, name) {
		return true
	}
	if p.creds[name] {
		return false
	}
	if matchAny(p.cfg.Include, name) {
		return true
	}
	return !SecretName(name)
}

// Withheld reports whether name is a secret the policy keeps from
// children by default (a credential ply read, or a secret-looking name),
// whatever Include says: its value is one to redact from ply's output.
func (p *Policy) Withheld(name string) bool {
	return p.creds[name] || SecretName(name)
}

// Environ returns env ("NAME=value" entries, as os.Environ gives them)
// without what children may not get, with Set laid over it. Entries keep
// their order; Set's come last, in name order.
func (p *Policy) Environ(env []string) []string {
	out := make([]string, 0, len(env)+len(p.cfg.Set))
	for _, e := range env {
		name, _, ok := strings.Cut(e, "=")
		if !ok || !p.Allowed(name) {
			continue
		}
		if _, set := p.cfg.Set[name]; set {
			continue
		}
		out = append(out, e)
	}
	names := make([]string, 0, len(p.cfg.Set))
	for k := range p.cfg.Set {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if !neverPassed[k] {
			out = append(out, k+"="+p.cfg.Set[k])
		}
	}
	return out
}

// Environ is Default().Environ(os.Environ()): what a child gets when its
// starter was given no environment.
func Environ() []string { return Default().Environ(os.Environ()) }

// SecretValues returns the values in env, and in Set, of the variables
// Withheld names, that are at least minLen bytes long: the strings ply
// must never print. Shorter values are left out because replacing them
// would mangle ordinary text.
func (p *Policy) SecretValues(env []string, minLen int) []string {
	var out []string
	add := func(name, v string) {
		if p.Withheld(name) && len(v) >= minLen && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, e := range env {
		if name, v, ok := strings.Cut(e, "="); ok {
			add(name, v)
		}
	}
	for k, v := range p.cfg.Set {
		add(k, v)
	}
	return out
}

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}
