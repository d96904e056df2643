package providertest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// stopTB stands in for a test in RecordedDir's calls: it records how the
// call ended, a skip or a failure, and stops the goroutine as testing does.
type stopTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (s *stopTB) Helper() {}

func (s *stopTB) Fatal(args ...any) { s.stop(&s.failed, fmt.Sprint(args...)) }

func (s *stopTB) Fatalf(format string, args ...any) { s.stop(&s.failed, fmt.Sprintf(format, args...)) }

func (s *stopTB) Skip(args ...any) { s.stop(&s.skipped, fmt.Sprint(args...)) }

func (s *stopTB) Skipf(format string, args ...any) { s.stop(&s.skipped, fmt.Sprintf(format, args...)) }

func (s *stopTB) stop(flag *bool, msg string) {
	*flag, s.msg = true, msg
	runtime.Goexit()
}

// call runs f with a stopTB on a goroutine of its own, so that a skip or a
// failure ends only that goroutine, and returns how it ended.
func call(t *testing.T, f func(testing.TB)) *stopTB {
	s := &stopTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(s)
	}()
	<-done
	return s
}

func TestRecordedDirMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "elsewhere")
	t.Setenv(FixturesDirEnv, missing)

	t.Run("skips and counts without the requirement", func(t *testing.T) {
		t.Setenv(RequireFixturesEnv, "")
		before := fixtureSkips.Load()
		s := call(t, func(tb testing.TB) { RecordedDir(tb) })
		if !s.skipped || s.failed {
			t.Fatalf("skipped %v, failed %v; want a skip", s.skipped, s.failed)
		}
		if !strings.Contains(s.msg, missing) {
			t.Errorf("skip message %q does not name %s", s.msg, missing)
		}
		if got := fixtureSkips.Load() - before; got != 1 {
			t.Errorf("counted %d skips, want 1", got)
		}
		if got := fixtureSkipWhere.Load(); got != missing {
			t.Errorf("reported path %v, want %s", got, missing)
		}
	})

	t.Run("fails with the requirement", func(t *testing.T) {
		t.Setenv(RequireFixturesEnv, "1")
		before := fixtureSkips.Load()
		s := call(t, func(tb testing.TB) { RecordedDir(tb) })
		if !s.failed || s.skipped {
			t.Fatalf("skipped %v, failed %v; want a failure", s.skipped, s.failed)
		}
		if !strings.Contains(s.msg, missing) || !strings.Contains(s.msg, RequireFixturesEnv) {
			t.Errorf("failure message %q names neither %s nor %s", s.msg, missing, RequireFixturesEnv)
		}
		if got := fixtureSkips.Load() - before; got != 0 {
			t.Errorf("counted %d skips for a failure", got)
		}
	})
}

// A directory that is there but lacks the named fixture is as missing as
// no directory at all.
func TestFixtureFileMissing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(FixturesDirEnv, dir)
	for _, load := range []func(testing.TB){
		func(tb testing.TB) { LoadCassette(tb, "absent.yaml") },
		func(tb testing.TB) { ChunkLines(tb, "absent.chunks.txt") },
	} {
		t.Setenv(RequireFixturesEnv, "1")
		if s := call(t, load); !s.failed || !strings.Contains(s.msg, "absent") {
			t.Errorf("with the requirement: failed %v (%q); want a failure naming the file", s.failed, s.msg)
		}
		t.Setenv(RequireFixturesEnv, "")
		if s := call(t, load); !s.skipped || !strings.Contains(s.msg, "absent") {
			t.Errorf("without it: skipped %v (%q); want a skip naming the file", s.skipped, s.msg)
		}
	}
}

func TestRecordedDirOverride(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.chunks.txt"), []byte("a\n\n b \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(FixturesDirEnv, dir)
	t.Setenv(RequireFixturesEnv, "1")
	if got := RecordedDir(t); got != dir {
		t.Errorf("RecordedDir = %s, want %s", got, dir)
	}
	if got := ChunkLines(t, "x.chunks.txt"); strings.Join(got, "|") != "a|b" {
		t.Errorf("ChunkLines = %q, want [a b]", got)
	}
}
