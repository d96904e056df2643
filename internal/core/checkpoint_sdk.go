package core

import (
	"context"
	"fmt"
	"sync"

	"github.com/plyhq/ply/internal/checkpoint"
	"github.com/plyhq/ply/internal/critical"
)

// messageCheckpoints maps the SDK's user message ids to the checkpoint
// taken before each, for rewind_files. It is this process's memory only:
// the SDK names messages of the queries it sent to this ply.
type messageCheckpoints struct {
	mu      sync.Mutex
	pending string
	byID    map[string]string
}

// markUserMessage says the next query is the SDK's message uuid.
func (c *checkpointer) markUserMessage(uuid string) {
	if c == nil {
		return
	}
	c.msgs.mu.Lock()
	defer c.msgs.mu.Unlock()
	c.msgs.pending = uuid
}

// noteQuery ties the checkpoint id taken for a query to its message.
func (c *checkpointer) noteQuery(id string) {
	c.msgs.mu.Lock()
	defer c.msgs.mu.Unlock()
	if c.msgs.pending != "" && id != "" {
		if c.msgs.byID == nil {
			c.msgs.byID = map[string]string{}
		}
		c.msgs.byID[c.msgs.pending] = id
	}
	c.msgs.pending = ""
}

// rewindFiles puts the files back as they were before the SDK's message
// uuid, or with dryRun only lists what would change. It returns the paths
// changed (or that would be).
func (c *checkpointer) rewindFiles(ctx context.Context, uuid string, dryRun bool) ([]string, error) {
	c.msgs.mu.Lock()
	id, ok := c.msgs.byID[uuid]
	c.msgs.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no checkpoint before user message %q: ply records one before each query this process ran", uuid)
	}
	if !c.waitBaseline(ctx) {
		return nil, ctx.Err()
	}
	if dryRun {
		now, err := c.store.Checkpoint(ctx, c.roots)
		if err != nil {
			return nil, fmt.Errorf("recording the current state: %w", err)
		}
		from, err := c.store.Load(now.ID)
		if err != nil {
			return nil, err
		}
		to, err := c.store.Load(id)
		if err != nil {
			return nil, err
		}
		var paths []string
		for _, ch := range checkpoint.Diff(from, to) {
			paths = append(paths, ch.Path)
		}
		return paths, nil
	}
	leave := critical.Enter(nil) // a signal waits for the files (see package critical)
	res, err := c.store.Restore(ctx, id)
	leave()
	if err != nil {
		return nil, fmt.Errorf("restoring checkpoint %s: %w", id, err)
	}
	c.log.Info("rewound the files for the SDK", "message", uuid, "checkpoint", id, "undo", res.Undo,
		"written", len(res.Written), "deleted", len(res.Deleted), "not_restored", res.NotRestored)
	return append(res.Written, res.Deleted...), nil
}
