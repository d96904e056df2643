package worktree

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// Sessions started at once in one repository each create their worktree
// while others list theirs: git reads every worktree's admin directory
// when it lists, and one being created is half there. Each process opens
// the repository on its own; here, goroutines with a Repo each do.
func TestConcurrentCreateAndList(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git many times at once")
	}
	dir := newRepo(t)
	ctx := context.Background()
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := Open(ctx, dir)
			if err != nil {
				errs <- err
				return
			}
			name := fmt.Sprintf("job-%02d", i)
			if _, made, err := r.Create(ctx, name); err != nil || !made {
				errs <- fmt.Errorf("Create(%s) = %v, %v", name, made, err)
			}
			if _, err := r.List(ctx); err != nil {
				errs <- fmt.Errorf("List after %s: %w", name, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if list, err := r.List(ctx); err != nil || len(list) != n {
		t.Fatalf("List = %d worktrees, %v; want %d", len(list), err, n)
	}
}
