package skills

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// TestToolGrantsOnlyWhenApproved: a model's load of a skill with
// allowed-tools says what it would grant (the policy asks with it); a
// load the policy allowed only as a read (confined: no one could
// approve) gives the body and grants nothing, and tells the model so.
func TestToolGrantsOnlyWhenApproved(t *testing.T) {
	home, ws := layout(t)
	list, _ := Load(Roots(home, ws, true))
	g := &grants{granted: map[string][]string{}}
	set := NewSet(list, nil, g)
	tool := NewTool(set)

	name, rules := tool.Grants(json.RawMessage(`{"skill":" plyproj "}`))
	if name != "plyproj" || !reflect.DeepEqual(rules, []string{"Bash(make:*)"}) {
		t.Errorf("Grants = %q %q", name, rules)
	}
	if _, rules := tool.Grants(json.RawMessage(`{"skill":"mine"}`)); rules != nil {
		t.Errorf("a skill without allowed-tools grants %q", rules)
	}
	if _, rules := tool.Grants(json.RawMessage(`{"skill":"nope"}`)); rules != nil {
		t.Errorf("an unknown skill grants %q", rules)
	}

	res, err := tool.Execute(tools.WithConfinement(context.Background(), tools.ConfineReadOnly), json.RawMessage(`{"skill":"plyproj"}`), nil)
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if len(g.granted) != 0 || len(set.Active()) != 0 {
		t.Errorf("a confined load granted %v (active %v)", g.granted, set.Active())
	}
	if !strings.Contains(res.Output, "Do the plyproj thing") || !strings.Contains(res.Output, "not granted") ||
		strings.Contains(res.Output, "run without asking") {
		t.Errorf("confined load output:\n%s", res.Output)
	}

	if _, err := tool.Execute(context.Background(), json.RawMessage(`{"skill":"plyproj"}`), nil); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.granted["skill plyproj"], []string{"Bash(make:*)"}) {
		t.Errorf("an approved load granted %v", g.granted)
	}
}
