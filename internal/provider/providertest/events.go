package providertest

import (
	"encoding/json"
	"strings"
	"testing"
)

// TypedEvents frames JSON events as Anthropic and the Responses API send
// them: an "event:" line named after the event's "type", then the data
// line.
func TypedEvents(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(e), &head)
		b.WriteString("event: " + head.Type + "\ndata: " + e + "\n\n")
	}
	return b.String()
}

// LoadTypedEvents reads a .chunks.txt fixture (see ChunkLines) and frames
// it with TypedEvents, failing the test on a line that is not a JSON
// object.
func LoadTypedEvents(t testing.TB, name string) string {
	t.Helper()
	lines := ChunkLines(t, name)
	for _, line := range lines {
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(line), &head); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return TypedEvents(lines...)
}
