package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// TodoWriteName is the name of the task-list tool.
const TodoWriteName = "todo_write"

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// maxTodos bounds a list: a plan of hundreds of items is a loop, not a
// plan, and the whole list is echoed to the model on every write.
const maxTodos = 100

// maxTodoContent bounds one item's text.
const maxTodoContent = 2000

// Todo is one item of the session's task list.
type Todo struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// TodoList is the session's task list. The model replaces it whole with
// each todo_write; onChange (the session's transcript, the UI) hears of
// every accepted list.
type TodoList struct {
	mu       sync.Mutex
	items    []Todo
	onChange func([]Todo)
}

// NewTodoList returns a list holding initial (a resumed session's list),
// reporting changes to onChange, which may be nil.
func NewTodoList(initial []Todo, onChange func([]Todo)) *TodoList {
	return &TodoList{items: slices.Clone(initial), onChange: onChange}
}

// Restore replaces the list without telling onChange: a resumed
// session's list is already on record.
func (l *TodoList) Restore(items []Todo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = slices.Clone(items)
}

// Items returns a copy of the current list.
func (l *TodoList) Items() []Todo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.items)
}

func (l *TodoList) set(items []Todo) {
	l.mu.Lock()
	l.items = slices.Clone(items)
	f := l.onChange
	l.mu.Unlock()
	if f != nil {
		f(slices.Clone(items))
	}
}

// TodoWrite is the todo_write tool.
type TodoWrite struct{ list *TodoList }

// NewTodoWrite returns the tool writing to list.
func NewTodoWrite(list *TodoList) *TodoWrite { return &TodoWrite{list: list} }

func (*TodoWrite) Name() string { return TodoWriteName }
func (*TodoWrite) Description() string {
	return "Create and update the task list for this session. Use it for work of three or more steps: write the steps as todos, mark one in_progress before starting it and completed as soon as it is done, and add items you discover. Each call replaces the whole list, so always send every item. Skip it for trivial one-step requests."
}

// Kind is think: the list lives in the session, not in the user's files.
func (*TodoWrite) Kind() Kind { return KindThink }

func (*TodoWrite) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array","description":"The complete, updated task list.","items":{"type":"object","properties":{"id":{"type":"string","minLength":1,"description":"A stable id, unique in the list."},"content":{"type":"string","minLength":1,"description":"What to do, in a short imperative sentence."},"status":{"type":"string","enum":["pending","in_progress","completed"]}},"required":["id","content","status"],"additionalProperties":false}}},"required":["todos"],"additionalProperties":false}`)
}

func (t *TodoWrite) Execute(ctx context.Context, args json.RawMessage, _ Output) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	var p struct {
		Todos []Todo `json:"todos"`
	}
	if err := json.Unmarshal(args, &p); err != nil {
		return Errorf("INVALID_TOOL_PARAMS", "todo_write: the arguments do not decode: %v", err), nil
	}
	if len(p.Todos) > maxTodos {
		return Errorf("INVALID_TOOL_PARAMS", "todo_write: %d todos is more than the %d a list may hold; group the steps", len(p.Todos), maxTodos), nil
	}
	seen := make(map[string]int, len(p.Todos))
	for i := range p.Todos {
		td := &p.Todos[i]
		td.ID = strings.TrimSpace(td.ID)
		td.Content = strings.TrimSpace(td.Content)
		switch {
		case td.ID == "":
			return Errorf("INVALID_TOOL_PARAMS", "todo_write: todo %d has an empty id", i+1), nil
		case td.Content == "":
			return Errorf("INVALID_TOOL_PARAMS", "todo_write: todo %q has no content", td.ID), nil
		case len(td.Content) > maxTodoContent:
			return Errorf("INVALID_TOOL_PARAMS", "todo_write: todo %q is %d bytes long; keep each item under %d", td.ID, len(td.Content), maxTodoContent), nil
		}
		switch td.Status {
		case TodoPending, TodoInProgress, TodoCompleted:
		default:
			return Errorf("INVALID_TOOL_PARAMS", "todo_write: todo %q has status %q; use pending, in_progress or completed", td.ID, td.Status), nil
		}
		if j, dup := seen[td.ID]; dup {
			return Errorf("INVALID_TOOL_PARAMS", "todo_write: todos %d and %d share the id %q; ids must be unique", j+1, i+1, td.ID), nil
		}
		seen[td.ID] = i
	}
	t.list.set(p.Todos)
	return Result{Output: FormatTodos(p.Todos), Display: todoSummary(p.Todos)}, nil
}

// FormatTodos renders a list as the model and the text UI see it.
func FormatTodos(todos []Todo) string {
	if len(todos) == 0 {
		return "The todo list is now empty."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Todo list updated (%s):\n", todoSummary(todos))
	for _, td := range todos {
		mark := "[ ]"
		switch td.Status {
		case TodoInProgress:
			mark = "[~]"
		case TodoCompleted:
			mark = "[x]"
		}
		fmt.Fprintf(&b, "%s %s (id %s)\n", mark, td.Content, td.ID)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func todoSummary(todos []Todo) string {
	var done, doing int
	for _, td := range todos {
		switch td.Status {
		case TodoCompleted:
			done++
		case TodoInProgress:
			doing++
		}
	}
	return fmt.Sprintf("%d items: %d completed, %d in progress, %d pending", len(todos), done, doing, len(todos)-done-doing)
}
