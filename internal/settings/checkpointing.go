package settings

// Checkpointing is the "checkpointing" object: whether ply records the
// workspace before each prompt and each writing tool batch, so that
// `ply rewind` and /rewind can put it back. Unset fields take defaults.
type Checkpointing struct {
	Enabled       *bool  `json:"enabled"`       // default true
	RetentionDays *int   `json:"retentionDays"` // default 30
	MaxFileBytes  *int64 `json:"maxFileBytes"`  // default 10 MB
}

// IsEnabled reports whether checkpoints are taken.
func (c Checkpointing) IsEnabled() bool { return c.Enabled == nil || *c.Enabled }

// Retention returns how many days checkpoints are kept.
func (c Checkpointing) Retention() int {
	if c.RetentionDays == nil || *c.RetentionDays <= 0 {
		return 30
	}
	return *c.RetentionDays
}

// MaxFile returns the size above which a file is recorded without its
// content.
func (c Checkpointing) MaxFile() int64 {
	if c.MaxFileBytes == nil || *c.MaxFileBytes <= 0 {
		return 10 << 20
	}
	return *c.MaxFileBytes
}

// over returns c with the fields o sets replacing c's.
func (c Checkpointing) over(o Checkpointing) Checkpointing {
	if o.Enabled != nil {
		c.Enabled = o.Enabled
	}
	if o.RetentionDays != nil {
		c.RetentionDays = o.RetentionDays
	}
	if o.MaxFileBytes != nil {
		c.MaxFileBytes = o.MaxFileBytes
	}
	return c
}
