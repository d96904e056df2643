// Package safegit prepares the environment of git commands that run
// without the user's approval (the auto-approved read-only commands, the
// repository snapshot taken at start-up) so that no setting of the
// repository's own configuration makes git run a program.
//
// shell.SafeGitEnv switches off the settings with fixed names. Filter
// drivers (filter.<driver>.clean), diff drivers (diff.<driver>.textconv,
// diff.<driver>.command) and a submodule's ignore setting have names of
// the repository's choosing, and git has no setting that switches them
// all off: the committed .gitattributes choose the driver and have the
// last word over every attributes file the environment can name. So Env
// asks git which of them the repository's configuration defines and
// overrides each one through GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n>,
// which git reads after every configuration file.
package safegit

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/plyhq/ply/internal/safefile"
	"github.com/plyhq/ply/internal/shell"
)

// skippedDiff replaces an external diff program. git runs it through the
// shell with the path and six more arguments, which ":" swallows.
const skippedDiff = `printf 'external diff program of the repository skipped for %s\n' "$1"; :`

// configKeys are the settings Overrides looks for.
const configKeys = `^(filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|diff\.external|submodule\..+\.ignore)$`

// readTimeout bounds each git config that Overrides runs.
const readTimeout = 10 * time.Second

// maxGitmodules caps what is read of .gitmodules.
const maxGitmodules = 1 << 20

// Env returns env with shell.SafeGitEnv's settings and Overrides' for the
// repository at dir.
func Env(ctx context.Context, dir string, env []string) []string {
	return Overrides(ctx, dir, shell.SafeGitEnv(env))
}

// Overrides returns env, the environment a git command will run with in
// dir, with settings appended that switch off the drivers the
// repository's configuration (every scope but the user's global and the
// system's) defines: filters do nothing, textconv is cat, an external
// diff program prints that it was skipped, and a submodule whose ignore
// setting would have git status look into its work tree is looked at only
// for its commit. When git cannot be asked (or ctx ends first), env is
// returned unchanged: git would fail the same way on that configuration.
func Overrides(ctx context.Context, dir string, env []string) []string {
	var o overrides
	out, _ := gitConfig(ctx, dir, env, nil, "--show-scope", "--get-regexp", configKeys)
	o.addScoped(out)
	if mods := gitmodules(dir); mods != nil {
		out, _ := gitConfig(ctx, dir, env, mods, "--file", "-", "--get-regexp", `^submodule\..+\.ignore$`)
		for _, f := range bytes.Split(out, []byte{0}) {
			if len(f) > 0 {
				o.add(keyValue(f))
			}
		}
	}
	return o.appendTo(env)
}

// addScoped adds the entries of git config -z --show-scope output: scope,
// NUL, key, newline, value, NUL.
func (o *overrides) addScoped(out []byte) {
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		scope := string(fields[i])
		if scope != "global" && scope != "system" {
			o.add(keyValue(fields[i+1]))
		}
	}
}

// gitConfig runs git config -z with args in dir.
func gitConfig(ctx context.Context, dir string, env []string, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"config", "-z"}, args...)...)
	cmd.Dir, cmd.Env = dir, append(env[:len(env):len(env)], "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	return cmd.Output()
}

// gitmodules returns the .gitmodules of the work tree holding dir, nil
// when there is none.
func gitmodules(dir string) []byte {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			f, err := safefile.Read(filepath.Join(d, ".gitmodules"), maxGitmodules)
			if err != nil {
				return nil
			}
			return f.Data
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil
		}
		d = parent
	}
}

// keyValue splits one -z entry: the key, a newline and the value (none
// for a bare boolean).
func keyValue(b []byte) (key, value string) {
	k, v, _ := bytes.Cut(b, []byte{'\n'})
	return string(k), string(v)
}

// overrides collects the settings to add, each key once.
type overrides struct {
	kv   [][2]string
	seen map[string]bool
}

func (o *overrides) set(key, value string) {
	if o.seen == nil {
		o.seen = map[string]bool{}
	}
	if !o.seen[key] {
		o.seen[key] = true
		o.kv = append(o.kv, [2]string{key, value})
	}
}

// add records the override for key, a setting the repository defines.
// Section and variable names are lower case in git's answers; the
// subsection (the driver's name) is as written.
func (o *overrides) add(key, value string) {
	section, rest, _ := strings.Cut(key, ".")
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		if key == "diff.external" {
			o.set(key, skippedDiff)
		}
		return
	}
	sub, name := rest[:i], rest[i+1:]
	switch section {
	case "filter":
		if name != "clean" && name != "smudge" && name != "process" {
			return
		}
		// An empty command is no filter; required would turn that
		// into an error.
		for _, n := range []string{"clean", "smudge", "process"} {
			o.set("filter."+sub+"."+n, "")
		}
		o.set("filter."+sub+".required", "false")
	case "diff":
		switch name {
		case "textconv":
			o.set(key, "cat")
		case "command":
			o.set(key, skippedDiff)
		}
	case "submodule":
		if name != "ignore" {
			return
		}
		if v := strings.ToLower(value); v != "all" && v != "dirty" {
			o.set(key, "dirty")
		}
	}
}

// appendTo numbers the overrides after env's own GIT_CONFIG_COUNT.
func (o *overrides) appendTo(env []string) []string {
	if len(o.kv) == 0 {
		return env
	}
	n := 0
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "GIT_CONFIG_COUNT="); ok {
			if c, err := strconv.Atoi(v); err == nil && c >= 0 && c < 1000 {
				n = c
			}
		}
	}
	out := env[:len(env):len(env)]
	for _, kv := range o.kv {
		out = append(out,
			"GIT_CONFIG_KEY_"+strconv.Itoa(n)+"="+kv[0],
			"GIT_CONFIG_VALUE_"+strconv.Itoa(n)+"="+kv[1])
		n++
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n))
}
