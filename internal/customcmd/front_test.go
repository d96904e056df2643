package customcmd

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// grants records Grant and Revoke as internal/permission's Policy sees them.
type grants struct {
	active map[string][]string
	log    []string
}

func (g *grants) Grant(source string, rules []string) error {
	g.active[source] = rules
	g.log = append(g.log, "grant "+source+" "+strings.Join(rules, ","))
	if slices.Contains(rules, "Bad(") {
		return errors.New("rule Bad( does not parse")
	}
	return nil
}

func (g *grants) Revoke(source string) {
	delete(g.active, source)
	g.log = append(g.log, "revoke "+source)
}

type models struct{ current string }

func (m *models) Model() string        { return m.current }
func (m *models) SetModel(name string) { m.current = name }

// A command's allowed-tools and model hold for its prompt only: from the
// moment it is sent until the next user prompt.
func TestFrontMatterHoldsForOnePrompt(t *testing.T) {
	g, ms := &grants{active: map[string][]string{}}, &models{current: "big"}
	f := NewFront(g, ms)
	commit := Command{Name: "commit", AllowedTools: []string{"Bash(git add:*)", "Bash(git commit:*)"}, Model: "small"}

	f.Use(commit)
	if len(g.active) != 0 || ms.current != "big" {
		t.Fatalf("applied before the prompt was sent: %v %s", g.active, ms.current)
	}
	if err := f.NewTurn(); err != nil {
		t.Fatal(err)
	}
	if got := g.active["command commit"]; !slices.Equal(got, commit.AllowedTools) || ms.current != "small" {
		t.Fatalf("while the prompt runs: grants %v, model %s", g.active, ms.current)
	}
	// The next typed prompt: rules revoked, model back.
	if err := f.NewTurn(); err != nil {
		t.Fatal(err)
	}
	if len(g.active) != 0 || ms.current != "big" {
		t.Fatalf("after: grants %v, model %s", g.active, ms.current)
	}

	// A command without front matter changes nothing; one with a bad
	// rule reports it and still grants the rest.
	f.Use(Command{Name: "plain"})
	if err := f.NewTurn(); err != nil || len(g.active) != 0 || ms.current != "big" {
		t.Fatalf("plain: %v %v %s", err, g.active, ms.current)
	}
	f.Use(Command{Name: "odd", AllowedTools: []string{"Read", "Bad("}})
	if err := f.NewTurn(); err == nil || !strings.Contains(err.Error(), "/odd") {
		t.Errorf("bad rule not reported with the command: %v", err)
	}
	if _, ok := g.active["command odd"]; !ok {
		t.Error("the good rules of /odd were not granted")
	}
	f.NewTurn()
	if len(g.active) != 0 {
		t.Errorf("left granted: %v", g.active)
	}
	var nilFront *Front
	nilFront.Use(commit)
	if err := nilFront.NewTurn(); err != nil {
		t.Error(err)
	}
}
