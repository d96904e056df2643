package checkpoint

import (
	"os"
	"time"
)

// PauseEnv, when set in the environment, names a file that a restore
// creates after its tenth change, then waits until it is removed (a
// minute at most). Tests that run ply as a process signal or kill it
// there, at a known point in the middle of a restore.
const PauseEnv = "PLY_TEST_RESTORE_PAUSE"

// pausePoint is the change after which a restore pauses.
const pausePoint = 10

// pauseForTest pauses the restore after change n, when asked (PauseEnv).
func pauseForTest(n int) {
	p := os.Getenv(PauseEnv)
	if p == "" || n != pausePoint {
		return
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		return
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		if _, err := os.Lstat(p); err != nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
