package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func saveFact(t *testing.T, tool *SaveMemory, fact string) Result {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"fact": fact})
	res, err := tool.Execute(context.Background(), args, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSaveMemoryCreatesTheFileAndSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", ".ply", "PLY.md")
	tool := NewSaveMemory(path)
	if res := saveFact(t, tool, "prefers tabs\nover spaces"); res.IsError {
		t.Fatal(res.Output)
	}
	if res := saveFact(t, tool, "- runs tests with make check"); res.IsError {
		t.Fatal(res.Output)
	}
	got, _ := os.ReadFile(path)
	want := MemoryHeading + "\n- prefers tabs over spaces\n- runs tests with make check\n"
	if string(got) != want {
		t.Fatalf("file = %q, want %q", got, want)
	}
	res := saveFact(t, tool, "prefers tabs over spaces")
	if res.IsError || !strings.Contains(res.Output, "already saved") {
		t.Fatalf("duplicate: %+v", res)
	}
	if again, _ := os.ReadFile(path); string(again) != want {
		t.Fatalf("a duplicate changed the file: %q", again)
	}
}

func TestSaveMemoryKeepsTheRestOfTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "PLY.md")
	for name, tc := range map[string]struct{ before, want string }{
		"no section, no final newline": {"# Mine\nbe terse", "# Mine\nbe terse\n\n" + MemoryHeading + "\n- fact\n"},
		"section in the middle": {"# Mine\n\n" + MemoryHeading + "\n- one\n\n## Later\ntext\n",
			"# Mine\n\n" + MemoryHeading + "\n- one\n- fact\n\n## Later\ntext\n"},
		"crlf": {"# Mine\r\n" + MemoryHeading + "\r\n- one\r\n", "# Mine\r\n" + MemoryHeading + "\r\n- one\r\n- fact\r\n"},
	} {
		t.Run(name, func(t *testing.T) {
			os.WriteFile(path, []byte(tc.before), 0o644)
			if res := saveFact(t, NewSaveMemory(path), "fact"); res.IsError {
				t.Fatal(res.Output)
			}
			if got, _ := os.ReadFile(path); string(got) != tc.want {
				t.Fatalf("file = %q\nwant   %q", got, tc.want)
			}
		})
	}
}

func TestSaveMemoryErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "PLY.md")
	tool := NewSaveMemory(path)
	for name, tc := range map[string]struct{ fact, want string }{
		"empty":    {" \n ", "the fact is empty"},
		"too long": {strings.Repeat("a", maxFact+1), "one short sentence"},
	} {
		t.Run(name, func(t *testing.T) {
			if res := saveFact(t, tool, tc.fact); !res.IsError || !strings.Contains(res.Output, tc.want) {
				t.Fatalf("got %+v, want an error with %q", res, tc.want)
			}
		})
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("a refused fact created the file")
	}
	// A directory where the file should be: a clear error, nothing lost.
	os.Mkdir(path, 0o755)
	if res := saveFact(t, tool, "x"); !res.IsError || res.ErrorType != "MEMORY_WRITE_FAILED" {
		t.Fatalf("got %+v", res)
	}
	res, err := tool.Execute(context.Background(), json.RawMessage(`{"fact":7}`), nil)
	if err != nil || !res.IsError || !strings.Contains(res.Output, "do not decode") {
		t.Fatalf("wrong type: %+v, %v", res, err)
	}
}
