package settings

// IDE is the "ide" entry: the connection to the editor ply runs in,
// through its companion extension.
type IDE struct {
	// Enabled turns the connection on (the default) or off; nil is
	// unset.
	Enabled *bool `json:"enabled"`
}

func (i IDE) over(o IDE) IDE {
	if o.Enabled != nil {
		i.Enabled = o.Enabled
	}
	return i
}

// On reports whether the connection is on: unless a file turned it off.
func (i IDE) On() bool { return i.Enabled == nil || *i.Enabled }
