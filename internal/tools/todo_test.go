package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestTodoWriteReplacesTheList(t *testing.T) {
	var seen [][]Todo
	list := NewTodoList([]Todo{{ID: "old", Content: "from a resumed session", Status: TodoCompleted}}, func(ts []Todo) { seen = append(seen, ts) })
	if got := list.Items(); len(got) != 1 || got[0].ID != "old" {
		t.Fatalf("initial list = %v", got)
	}
	tool := NewTodoWrite(list)
	res, err := tool.Execute(context.Background(), json.RawMessage(`{"todos":[
		{"id":"1","content":"  read the code ","status":"completed"},
		{"id":"2","content":"make it async","status":"in_progress"},
		{"id":"3","content":"run the tests","status":"pending"}]}`), nil)
	if err != nil || res.IsError {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	items := list.Items()
	if len(items) != 3 || items[0].Content != "read the code" || items[1].Status != TodoInProgress {
		t.Fatalf("list = %+v", items)
	}
	if len(seen) != 1 || len(seen[0]) != 3 {
		t.Fatalf("onChange saw %v", seen)
	}
	for _, want := range []string{"3 items: 1 completed, 1 in progress, 1 pending", "[x] read the code (id 1)", "[~] make it async", "[ ] run the tests"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	// Items returns a copy: the caller cannot change the list.
	items[0].Content = "changed"
	if list.Items()[0].Content != "read the code" {
		t.Error("Items shares its slice with the list")
	}
	res, _ = tool.Execute(context.Background(), json.RawMessage(`{"todos":[]}`), nil)
	if res.IsError || len(list.Items()) != 0 || !strings.Contains(res.Output, "empty") {
		t.Fatalf("emptying: %+v, list %v", res, list.Items())
	}
}

func TestTodoWriteRejectsBadLists(t *testing.T) {
	big := `{"todos":[` + strings.Repeat(`{"id":"x","content":"y","status":"pending"},`, maxTodos) + `{"id":"z","content":"y","status":"pending"}]}`
	for name, tc := range map[string]struct{ args, want string }{
		"duplicate id":  {`{"todos":[{"id":"1","content":"a","status":"pending"},{"id":"1","content":"b","status":"pending"}]}`, `todos 1 and 2 share the id "1"`},
		"blank id":      {`{"todos":[{"id":"  ","content":"a","status":"pending"}]}`, "todo 1 has an empty id"},
		"blank content": {`{"todos":[{"id":"1","content":" ","status":"pending"}]}`, `todo "1" has no content`},
		"bad status":    {`{"todos":[{"id":"1","content":"a","status":"done"}]}`, `status "done"`},
		"too many":      {big, "more than the 100"},
		"wrong type":    {`{"todos":"buy milk"}`, "do not decode"},
		"long content":  {`{"todos":[{"id":"1","content":"` + strings.Repeat("a", maxTodoContent+1) + `","status":"pending"}]}`, "keep each item under"},
	} {
		t.Run(name, func(t *testing.T) {
			list := NewTodoList([]Todo{{ID: "keep", Content: "k", Status: TodoPending}}, nil)
			res, err := NewTodoWrite(list).Execute(context.Background(), json.RawMessage(tc.args), nil)
			if err != nil || !res.IsError || res.ErrorType != "INVALID_TOOL_PARAMS" || !strings.Contains(res.Output, tc.want) {
				t.Fatalf("got %+v, %v; want an INVALID_TOOL_PARAMS error with %q", res, err, tc.want)
			}
			if got := list.Items(); len(got) != 1 || got[0].ID != "keep" {
				t.Errorf("a refused write changed the list: %v", got)
			}
		})
	}
}
