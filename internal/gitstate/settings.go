package gitstate

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// settings are the configuration values the reading depends on.
type settings struct {
	fileMode       bool   // core.fileMode: the executable bit counts
	excludesFile   string // core.excludesFile, "" for none
	attributesFile string // core.attributesFile, "" for none
	// noSystemAttributes is GIT_ATTR_NOSYSTEM.
	noSystemAttributes bool
}

// statusKeys are the status.* settings that change nothing in the
// snapshot's command (the flags it passes decide, or they only shape the
// long format).
var statusKeys = map[string]bool{
	"status.showuntrackedfiles": true, "status.renames": true, "status.renamelimit": true,
	"status.short": true, "status.submodulesummary": true, "status.aheadbehind": true,
	"status.displaycommentprefix": true,
}

// apply folds one configuration entry into s, or says why the reading
// must be left to git.
func (s *settings) apply(e configEntry, home string) error {
	key := e.Key
	section, _, _ := strings.Cut(key, ".")
	name := key[strings.LastIndexByte(key, '.')+1:]
	boolIs := func(want bool) bool {
		v, ok := configBool(e)
		return ok && v == want
	}
	switch {
	case section == "extensions":
		if key == "extensions.objectformat" && strings.EqualFold(e.Value, "sha1") {
			return nil
		}
		return unsupported("the repository uses the extension " + key)
	case key == "core.repositoryformatversion":
		if e.Value != "0" && e.Value != "1" {
			return unsupported("repository format version " + e.Value)
		}
	case key == "core.bare":
		if !boolIs(false) {
			return unsupported("a bare repository")
		}
	case key == "core.worktree":
		return unsupported("core.worktree is set")
	case key == "core.quotepath":
		if !boolIs(true) {
			return unsupported("core.quotePath is off")
		}
	case key == "core.ignorecase", key == "core.precomposeunicode", key == "core.sparsecheckout",
		key == "core.splitindex", key == "core.autocrlf", key == "core.fsmonitor":
		if !boolIs(false) {
			return unsupported(key + " is set")
		}
	case key == "core.symlinks":
		if !boolIs(true) {
			return unsupported("core.symlinks is off")
		}
	case key == "core.eol", key == "core.abbrev", key == "core.notesref", key == "status.relativepaths":
		return unsupported(key + " is set")
	case key == "core.filemode":
		v, ok := configBool(e)
		if !ok {
			return unsupported("core.fileMode is not a boolean")
		}
		s.fileMode = v
	case key == "core.excludesfile":
		p, err := configPath(e.Value, home)
		if err != nil {
			return err
		}
		s.excludesFile = p
	case key == "core.attributesfile":
		p, err := configPath(e.Value, home)
		if err != nil {
			return err
		}
		s.attributesFile = p
	case section == "status" && !statusKeys[key]:
		return unsupported(key + " is set")
	case section == "color" && (name == "ui" || name == "status" || name == "diff") && strings.EqualFold(e.Value, "always"):
		return unsupported(key + " is always")
	case key == "i18n.logoutputencoding":
		if v := strings.ToLower(e.Value); v != "utf-8" && v != "utf8" {
			return unsupported("log output in " + e.Value)
		}
	case key == "log.showsignature", key == "log.decorate", key == "log.abbrevcommit":
		// The snapshot's git switches these off or its flags override them.
	case key == "notes.displayref":
		return unsupported("notes.displayRef is set")
	}
	return nil
}

// configPath expands a path setting as git does: "~/" is the home
// directory; a relative path is left to git.
func configPath(v, home string) (string, error) {
	if rest, ok := strings.CutPrefix(v, "~/"); ok {
		if home == "" {
			return "", unsupported("a path under ~ with no home directory")
		}
		v = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(v) {
		return "", unsupported("a relative path in the configuration: " + v)
	}
	return v, nil
}

// readSettings reads the system, global and repository configuration in
// git's order, later files overriding earlier ones.
func readSettings(env map[string]string, common *dir) (*settings, error) {
	home := env["HOME"]
	xdg := env["XDG_CONFIG_HOME"]
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	s := &settings{fileMode: true, noSystemAttributes: env["GIT_ATTR_NOSYSTEM"] != ""}
	if xdg != "" {
		s.excludesFile = filepath.Join(xdg, "git", "ignore")
		s.attributesFile = filepath.Join(xdg, "git", "attributes")
	}
	var files []string
	if env["GIT_CONFIG_NOSYSTEM"] == "" {
		files = append(files, "/etc/gitconfig")
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	files = append(files, "")
	for _, name := range files {
		var data []byte
		var err error
		if name == "" {
			name = filepath.Join(common.path, "config")
			data, err = common.read("config", maxConfig)
		} else {
			data, err = readUserFile(name, maxConfig)
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, unsupported(name + " not read: " + err.Error())
		}
		if err := s.applyFile(name, data, home, false, 0); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// maxIncludeDepth is git's own limit on nested includes.
const maxIncludeDepth = 10

// applyFile applies a configuration file's entries and follows its
// includes. An include.path is read as git reads it; an includeIf's
// condition (a git directory, a branch) is not evaluated: its file is
// read as if it applied, and any setting in it that would change the
// reading declines, so that both answers agree. cond says the file is
// such a conditional one.
func (s *settings) applyFile(name string, data []byte, home string, cond bool, depth int) error {
	if depth > maxIncludeDepth {
		return unsupported("includes nested too deep")
	}
	entries, err := parseConfig(data)
	if err != nil {
		return unsupported(name + ": " + err.Error())
	}
	for _, e := range entries {
		section, _, _ := strings.Cut(e.Key, ".")
		if (section == "include" || section == "includeif") && strings.HasSuffix(e.Key, ".path") {
			if err := s.include(name, e, home, cond || section == "includeif", depth); err != nil {
				return err
			}
			continue
		}
		before := *s
		if err := s.apply(e, home); err != nil {
			return err
		}
		if cond && *s != before {
			return unsupported("a conditional include sets " + e.Key)
		}
	}
	return nil
}

// include reads the file an include names, relative to the including
// file's directory; a missing file is skipped, as git does.
func (s *settings) include(from string, e configEntry, home string, cond bool, depth int) error {
	p := e.Value
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home == "" {
			return unsupported("an include under ~ with no home directory")
		}
		p = filepath.Join(home, rest)
	} else if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from), p)
	}
	data, err := readUserFile(p, maxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return unsupported(p + " not read: " + err.Error())
	}
	return s.applyFile(p, data, home, cond, depth+1)
}

// contentAttributes are the attributes that change what git hashes for
// a file or how it compares it.
var contentAttributes = []string{"text", "eol", "crlf", "filter", "ident", "working-tree-encoding"}

// attributesChangeContent reports whether an attributes file sets any
// attribute that makes git convert content, or defines a macro (which
// may).
func attributesChangeContent(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "[attr]") {
			return true
		}
		fields := strings.Fields(line)
		for _, a := range fields[1:] {
			// Unsetting text (also through the binary macro) converts
			// nothing.
			if a == "-text" || a == "-crlf" || a == "binary" {
				continue
			}
			a = strings.TrimLeft(a, "-!")
			a, _, _ = strings.Cut(a, "=")
			for _, c := range contentAttributes {
				if a == c {
					return true
				}
			}
		}
		// A quoted pattern may hide its attributes from the split above.
		if strings.HasPrefix(line, `"`) {
			return true
		}
	}
	return false
}
