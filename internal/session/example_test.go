package session_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/session"
)

// A session is one append-only JSONL file with one writer at a time. Create
// starts it and holds its lock; Append queues a history entry without waiting
// for the disk, and Sync or Close waits until everything queued is written.
// While the writer is open, a second writer on the same transcript is refused
// with a *HeldError; once it is closed, Open loads the history and appends to it.
func ExampleCreate() {
	home, err := os.MkdirTemp("", "ply-home")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)
	workspace := filepath.Join(home, "project")

	w, err := session.Create(home, workspace, "s1", "qwen3-coder-plus")
	if err != nil {
		fmt.Println("create:", err)
		return
	}
	w.Append(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Text: "make this function async"}}})
	w.Append(llm.Message{Role: llm.RoleModel, Parts: []llm.Part{{Text: "Done: fetch now returns a channel."}}})
	if err := w.Sync(); err != nil {
		fmt.Println("sync:", err)
		return
	}

	// One writer per transcript: this process already holds it.
	if _, _, err := session.Open(w.Path()); err != nil {
		var held *session.HeldError
		fmt.Println("second writer refused:", errors.As(err, &held))
	}
	if err := w.Close(); err != nil {
		fmt.Println("close:", err)
		return
	}

	latest, err := session.Latest(home, workspace)
	if err != nil {
		fmt.Println("latest:", err)
		return
	}
	fmt.Printf("latest: %s, %q, %d model turn(s)\n", latest.ID, latest.FirstPrompt, latest.Turns)

	w2, t, err := session.Open(latest.Path)
	if err != nil {
		fmt.Println("open:", err)
		return
	}
	defer w2.Close()
	for _, m := range t.History {
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}
	// Output:
	// second writer refused: true
	// latest: s1, "make this function async", 1 model turn(s)
	// user: make this function async
	// model: Done: fetch now returns a channel.
}
