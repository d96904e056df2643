package chat

// Provider returns the provider the chat sends to, for what a session
// asks of it beside the conversation (its model list).
func (c *Chat) Provider() Provider { return c.provider }
