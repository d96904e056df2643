// Package providertest holds the test helpers the provider packages share:
// locating the recorded fixtures, decoding cassettes, a scripted SSE
// server that replays a body whole or in small flushed pieces, and
// handlers that cut or stall a connection. It is imported only by
// _test.go files.
package providertest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
	"gopkg.in/yaml.v3"
)

// Main runs a provider package's tests and fails them if goroutines leak.
// Call it from TestMain. When tests skipped for missing recorded fixtures,
// it prints one line saying how many, after the tests.
func Main(m *testing.M) {
	goleak.VerifyTestMain(reportingM{m})
}

// reportingM runs the tests, then reports the fixture skips.
type reportingM struct{ m *testing.M }

func (r reportingM) Run() int {
	code := r.m.Run()
	if n := fixtureSkips.Load(); n > 0 {
		fmt.Printf("%s: %d tests skipped, recorded fixtures missing at %s (%s=1 fails them)\n",
			filepath.Base(os.Args[0]), n, fixtureSkipWhere.Load(), RequireFixturesEnv)
	}
	return code
}

// PieceSizes are the write sizes recorded streams are replayed with: once
// in one write and once in small flushed pieces, so that chunk boundaries
// fall everywhere: inside "data:", inside JSON strings, inside multi-byte
// characters.
var PieceSizes = []int{0, 1, 7}

// FixturesDirEnv names the variable that, when set, is the directory of
// recorded fixtures, in place of ../shared/fixtures/recorded beside the
// repository.
const FixturesDirEnv = "PLY_FIXTURES_DIR"

// RequireFixturesEnv names the variable that, set to 1, turns a missing
// fixture from a skip into a failure. .ci/run sets it.
const RequireFixturesEnv = "PLY_REQUIRE_FIXTURES"

var (
	// fixtureSkips counts the tests skipped for a missing fixture; Main
	// reports it.
	fixtureSkips atomic.Int64
	// fixtureSkipWhere is the path the last such skip looked at.
	fixtureSkipWhere atomic.Value
)

// missingFixture fails the test when PLY_REQUIRE_FIXTURES=1 and otherwise
// skips it, counting the skip for Main's report. where is the path that
// was looked at; why says what was wrong with it.
func missingFixture(t testing.TB, where string, why error) {
	t.Helper()
	if os.Getenv(RequireFixturesEnv) == "1" {
		t.Fatalf("recorded fixtures required (%s=1) but missing at %s: %v", RequireFixturesEnv, where, why)
	}
	fixtureSkips.Add(1)
	fixtureSkipWhere.Store(where)
	t.Skipf("recorded fixtures missing at %s: %v", where, why)
}

// RecordedDir finds the recorded fixtures: $PLY_FIXTURES_DIR when it is
// set, otherwise shared/fixtures/recorded beside the repository (the
// directory holding go.mod, then ../shared). It skips the test when the
// fixtures are not there, or fails it when PLY_REQUIRE_FIXTURES=1.
func RecordedDir(t testing.TB) string {
	t.Helper()
	rec := os.Getenv(FixturesDirEnv)
	if rec == "" {
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
				missingFixture(t, "../shared/fixtures/recorded", errors.New("go.mod not found above the test directory"))
			}
			dir = parent
		}
		rec = filepath.Join(dir, "..", "shared", "fixtures", "recorded")
	}
	if fi, err := os.Stat(rec); err != nil {
		missingFixture(t, rec, err)
	} else if !fi.IsDir() {
		missingFixture(t, rec, errors.New("not a directory"))
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
// test when it is absent (failing it when PLY_REQUIRE_FIXTURES=1).
func LoadCassette(t testing.TB, name string) *Cassette {
	t.Helper()
	path := filepath.Join(RecordedDir(t), name)
	b, err := os.ReadFile(path)
	if err != nil {
		missingFixture(t, path, err)
	}
	var c Cassette
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("decoding %s: %v", name, err)
	}
	return &c
}

// ChunkLines reads the named .chunks.txt fixture from RecordedDir: one
// decoded chunk a line, returned trimmed, blank lines left out. It skips
// the test when the fixture is absent (fails it when PLY_REQUIRE_FIXTURES=1).
func ChunkLines(t testing.TB, name string) []string {
	t.Helper()
	path := filepath.Join(RecordedDir(t), name)
	f, err := os.Open(path)
	if err != nil {
		missingFixture(t, path, err)
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
