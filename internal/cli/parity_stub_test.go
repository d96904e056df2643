package cli

import "testing"

func todo(t *testing.T) { t.Skip("todo") }

var (
	parityKeepHeadless, parityKeepSDK, parityKeepTUI, parityKeepACP                                             = todo, todo, todo, todo
	parityCheckpointHeadless, parityCheckpointSDK, parityCheckpointTUI, parityCheckpointACP                     = todo, todo, todo, todo
	parityInboxHeadless, parityInboxSDK, parityInboxTUI, parityInboxACP, parityInboxSubagent                    = todo, todo, todo, todo, todo
)
