package tui

import (
	"errors"
	"strings"
	"testing"
)

func TestAddDirCommand(t *testing.T) {
	h := newHarness(t, nil, nil)
	var asked []string
	h.m.cfg.Session = struct {
		bare
		DirAdder
	}{bare{}, addDirFunc(func(dir string) (string, []string, error) {
		asked = append(asked, dir)
		if dir == "../nope" {
			return "", nil, errors.New("adding ../nope to the workspace: no such file or directory")
		}
		return "/abs/" + dir, []string{"files there are not checkpointed"}, nil
	})}
	h.runCommand("/add-dir ../lib")
	h.runCommand("/add-dir ../nope")
	h.runCommand("/add-dir")
	p := h.printed()
	for _, want := range []string{
		"added /abs/../lib to the workspace: the tools may read and write there",
		"files there are not checkpointed",
		"✗ /add-dir: adding ../nope to the workspace: no such file or directory",
		"✗ /add-dir DIR: name the directory to add",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("output lacks %q:\n%s", want, p)
		}
	}
	if strings.Join(asked, ",") != "../lib,../nope" {
		t.Errorf("the session was asked for %q", asked)
	}
	h.m.cfg.Session = bare{}
	h.runCommand("/add-dir x")
	if !strings.Contains(h.printed(), "/add-dir is not available in this session") {
		t.Errorf("no unavailability said:\n%s", h.printed())
	}
}
