package session

import (
	"testing"

	"go.uber.org/goleak"
)

// Every Writer owns a goroutine; Close must stop it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
