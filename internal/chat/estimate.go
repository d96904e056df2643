package chat

// Estimate is the calibrated token estimate of the next request, by part.
type Estimate struct {
	System, Tools, History int
	// LastPrompt is the prompt size the provider last reported; 0
	// before the first reply.
	LastPrompt int
	// Added is the raw estimate of what the next request holds beyond
	// the one LastPrompt measured (the reply, tool results, a prompt);
	// negative when the history shrank since (compression, /clear).
	Added int
}

// Estimate sizes the request the chat would send now: the four-characters
// rule scaled by the ratio last observed between reported and estimated
// prompts.
func (c *Chat) Estimate() Estimate {
	req := c.request(0)
	tools := 0
	for _, t := range req.Tools {
		tools += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	c.mu.Lock()
	last, lastRaw := c.lastPrompt, c.lastRaw
	c.mu.Unlock()
	return Estimate{
		System:     c.calibrated(len(req.System) / 4),
		Tools:      c.calibrated(tools / 4),
		History:    c.calibrated(EstimateTokens(req.Messages)),
		LastPrompt: last,
		Added:      estimateRequest(req) - lastRaw,
	}
}
