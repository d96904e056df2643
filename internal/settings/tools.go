package settings

// Tools configures the tools.
type Tools struct {
	// ShellOutputLimit caps the characters of a command's output that
	// the model gets (its first and last lines); the whole output is
	// saved with the session. 0 keeps the default (16000).
	ShellOutputLimit int `json:"shellOutputLimit"`
}

func (t Tools) over(o Tools) Tools {
	if o.ShellOutputLimit != 0 {
		t.ShellOutputLimit = o.ShellOutputLimit
	}
	return t
}
