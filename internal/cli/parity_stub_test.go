package cli

import "testing"

func todo(t *testing.T) { t.Skip("todo") }

var (
	parityInboxHeadless, parityInboxSDK, parityInboxTUI, parityInboxACP, parityInboxSubagent                    = todo, todo, todo, todo, todo
)
