package acp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

func TestFilterLines(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		``,
		`{oops`,
		`[1,2]`,
		`{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":2,"method":3}`,
		`  {"jsonrpc":"2.0","method":"session/cancel","params":{}}  `,
	}, "\n")
	var out, errs bytes.Buffer
	if err := filterLines(strings.NewReader(in), &out, &errs, newPending()); err != nil {
		t.Fatal(err)
	}
	wantOut := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/cancel","params":{}}` + "\n"
	if out.String() != wantOut {
		t.Errorf("passed on:\n%s\nwant:\n%s", out.String(), wantOut)
	}
	var codes []int
	for _, l := range strings.Split(strings.TrimSpace(errs.String()), "\n") {
		var m struct {
			ID    *int `json:"id"`
			Error struct{ Code int }
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("error line %q: %v", l, err)
		}
		if m.ID != nil {
			t.Errorf("error line %q has an id", l)
		}
		codes = append(codes, m.Error.Code)
	}
	want := []int{codeParseError, codeInvalidRequest, codeInvalidRequest, codeInvalidRequest}
	if len(codes) != len(want) {
		t.Fatalf("error codes %v, want %v", codes, want)
	}
	for i := range want {
		if codes[i] != want[i] {
			t.Errorf("error codes %v, want %v", codes, want)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"x"}`, `{`, `[]`, `null`, `{"id":null}`, `{"method":1}`, "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		code, _ := check(line)
		if code == 0 {
			// What passes is a JSON object with a method or an id.
			var m map[string]json.RawMessage
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("passed %q: %v", line, err)
			}
			if m["method"] == nil && m["id"] == nil {
				t.Fatalf("passed %q without method or id", line)
			}
			return
		}
		if !json.Valid(errorLine(code, "x")) {
			t.Fatal("error line is not JSON")
		}
	})
}

func TestPromptParts(t *testing.T) {
	parts, err := promptParts([]sdk.ContentBlock{
		sdk.TextBlock("look at"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/a.go#L3:5", Text: "package a"}}),
		sdk.ResourceLinkBlock("b.go", "file:///w/b.go"),
		sdk.ImageBlock("aGk=", "image/png"),
	})
	if err != nil {
		t.Fatal(err)
	}
	// What the user typed reads as they wrote it, the attachments named
	// where they were; their content and what they are comes after, in
	// one block the model is told about.
	if len(parts) != 5 || parts[0].Text != "look at" || parts[1].Text != " @/w/a.go (lines 3-5) " || parts[2].Text != " @/w/b.go " ||
		parts[3].Media == nil || string(parts[3].Media.Data) != "hi" || parts[3].Media.MIMEType != "image/png" {
		t.Fatalf("parts = %+v", parts)
	}
	ctx := parts[4].Text
	for _, want := range []string{"<system-reminder>", "from their editor", "/w/a.go, lines 3-5:\n<file uri=\"file:///w/a.go#L3:5\">\npackage a\n</file>", "/w/b.go (not attached: read it if the request needs it)"} {
		if !strings.Contains(ctx, want) {
			t.Fatalf("the context block lacks %q:\n%s", want, ctx)
		}
	}
	if !strings.HasSuffix(ctx, "</system-reminder>") {
		t.Fatalf("the block is not closed:\n%s", ctx)
	}
	if _, err := promptParts(nil); err == nil {
		t.Error("an empty prompt was taken")
	}
	if _, err := promptParts([]sdk.ContentBlock{sdk.ImageBlock("!!", "image/png")}); err == nil {
		t.Error("an image that is not base64 was taken")
	}
	if _, err := promptParts([]sdk.ContentBlock{sdk.AudioBlock("aGk=", "audio/wav")}); err == nil {
		t.Error("audio was taken")
	}
}

func TestDescribe(t *testing.T) {
	c := describe("run_shell_command", `{"command":"go test\n  ./..."}`)
	if c.kind != sdk.ToolKindExecute || c.title != "run_shell_command: go test ./..." || c.locations != nil {
		t.Errorf("shell: %+v", c)
	}
	c = describe("grep_search", `{"pattern":"TODO","path":"/w/src"}`)
	if c.kind != sdk.ToolKindSearch || len(c.locations) != 1 || c.locations[0].Path != "/w/src" {
		t.Errorf("grep: %+v", c)
	}
	c = describe("mcp__x__y", `not json`)
	if c.kind != sdk.ToolKindOther || c.title != "mcp__x__y" || c.raw != "not json" {
		t.Errorf("unknown: %+v", c)
	}
	if got := oneLine(strings.Repeat("é", 200), 10); len([]rune(got)) != 10 {
		t.Errorf("oneLine cut to %d runes", len([]rune(got)))
	}
}

func FuzzDescribe(f *testing.F) {
	f.Add("edit", `{"file_path":"/a","old_string":"x","new_string":"y"}`)
	f.Add("write_file", `{"file_path":"/a","content":"y"}`)
	f.Add("read_many_files", `{"paths":["a","b"]}`)
	f.Add("x", `{"file_path":1}`)
	f.Fuzz(func(t *testing.T, name, args string) {
		c := describe(name, args)
		if !strings.HasPrefix(c.title, name) || c.kind == "" {
			t.Fatalf("describe(%q, %q) = %+v", name, args, c)
		}
		_ = resultContent(name, args, "out", true)
	})
}

func FuzzPromptParts(f *testing.F) {
	for _, s := range []string{
		`[{"type":"text","text":"hi"}]`,
		`[{"type":"image","data":"aGk=","mimeType":"image/png"}]`,
		`[{"type":"resource","resource":{"uri":"file:///a","text":"x"}}]`,
		`[{"type":"resource","resource":{"uri":"file:///a","blob":"aGk="}}]`,
		`[{"type":"resource_link","name":"a","uri":"file:///a"}]`,
		`[{"type":"audio","data":"aGk=","mimeType":"audio/wav"}]`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var blocks []sdk.ContentBlock
		if json.Unmarshal(data, &blocks) != nil {
			return
		}
		parts, err := promptParts(blocks)
		if err == nil && len(parts) == 0 {
			t.Fatalf("no error and no parts for %s", data)
		}
	})
}
