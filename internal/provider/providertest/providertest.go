// Package providertest holds the test helpers the provider packages share:
// locating the recorded fixtures, decoding cassettes, a scripted SSE
// server that replays a body whole or in small flushed pieces, and
// handlers that cut or stall a connection. It is imported only by
// _test.go files.
package providertest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
	"gopkg.in/yaml.v3"
)

// Main runs a provider package's tests and fails them if goroutines leak.
// Call it from TestMain.
func Main(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// PieceSizes are the write sizes recorded streams are replayed with: once
// in one write and once in small flushed pieces, so that chunk boundaries
// fall everywhere: inside "data:", inside JSON strings, inside multi-byte
// characters.
var PieceSizes = []int{0, 1, 7}

// RecordedDir finds shared/fixtures/recorded beside the repository: the
// directory holding go.mod, then ../shared. It skips the test when the
// fixtures are not there, or fails it when PLY_REQUIRE_FIXTURES=1.
func RecordedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("go.mod not found above the test directory")
		}
		dir = parent
	}
	rec := filepath.Join(dir, "..", "shared", "fixtures", "recorded")
	if _, err := os.Stat(rec); err != nil {
		if os.Getenv("PLY_REQUIRE_FIXTURES") == "1" {
			t.Fatalf("recorded fixtures required (PLY_REQUIRE_FIXTURES=1) but not available at %s: %v", rec, err)
		}
		t.Skipf("recorded fixtures not available at %s: %v", rec, err)
	}
	return rec
}

// Cassette is a recorded HTTP exchange.
type Cassette struct {
	Interactions []struct {
		Request struct {
			Body string `yaml:"body"`
		} `yaml:"request"`
		Response struct {
			Body    string              `yaml:"body"`
			Headers map[string][]string `yaml:"headers"`
			Code    int                 `yaml:"code"`
		} `yaml:"response"`
	} `yaml:"interactions"`
}

// LoadCassette decodes the named cassette from RecordedDir, skipping the
// test when it is absent.
func LoadCassette(t testing.TB, name string) *Cassette {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(RecordedDir(t), name))
	if err != nil {
		t.Skipf("fixture %s not available: %v", name, err)
	}
	var c Cassette
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("decoding %s: %v", name, err)
	}
	return &c
}

// ChunkLines reads the named .chunks.txt fixture from RecordedDir: one
// decoded chunk a line, returned trimmed, blank lines left out. It skips
// the test when the fixture is absent.
func ChunkLines(t testing.TB, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(RecordedDir(t), name))
	if err != nil {
		t.Skipf("fixture %s not available: %v", name, err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// CutHandler sends prefix with chunked encoding, then closes the
// connection without the terminating chunk; with reset it closes with a
// TCP RST.
func CutHandler(prefix string, reset bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if prefix != "" {
			_, _ = io.WriteString(w, prefix)
			w.(http.Flusher).Flush()
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		if tc, ok := conn.(*net.TCPConn); ok && reset {
			_ = tc.SetLinger(0) // close with RST
		}
		_ = conn.Close()
	}
}

// StallHandler sends start and then waits until the client goes away,
// closing gone when it has.
func StallHandler(start string, gone chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, start)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	}
}
