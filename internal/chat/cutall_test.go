package chat

import (
	"context"
	"math"
)

// cutToolResults cuts any tool result, the current turn's too, largest
// first, at each cut level in turn, until the history fits budget: the
// cutting itself, without the order and the floor that relieve adds.
func (c *Chat) cutToolResults(ctx context.Context, budget int) bool {
	return c.cutResults(ctx, budget, 0, math.MaxInt, cutLevels, true)
}
