package acp

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/llm"
)

// promptParts turns a prompt's content blocks into the parts of a user
// message: text as text, images as media. What the editor attached
// (embedded text resources: a file, a selection; resource links: a file
// or symbol mentioned) is named where it stood, by path and line range,
// and described after the prompt in one block that tells the model it is
// context from the editor, with the embedded text quoted: the model reads
// the request as the user wrote it, and knows what the mentions are.
func promptParts(blocks []sdk.ContentBlock) ([]llm.Part, error) {
	var parts []llm.Part
	var attached strings.Builder
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, llm.Part{Text: b.Text.Text})
		case b.Image != nil:
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err != nil {
				return nil, fmt.Errorf("decoding an image of the prompt: %w", err)
			}
			parts = append(parts, llm.Part{Media: &llm.Media{MIMEType: b.Image.MimeType, Data: data}})
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			path, lines := mention(r.Uri)
			parts = append(parts, llm.Part{Text: " @" + path + paren(lines) + " "})
			if lines != "" {
				lines = ", " + lines
			}
			fmt.Fprintf(&attached, "- %s%s:\n<file uri=%q>\n%s\n</file>\n", path, lines, r.Uri, defuse(r.Text))
		case b.ResourceLink != nil:
			path, lines := mention(b.ResourceLink.Uri)
			parts = append(parts, llm.Part{Text: " @" + path + paren(lines) + " "})
			fmt.Fprintf(&attached, "- %s%s (not attached: read it if the request needs it)\n", path, paren(lines))
		default:
			return nil, errors.New("the prompt has a content block ply does not take (audio or a binary resource)")
		}
	}
	if len(parts) == 0 {
		return nil, errors.New("the prompt is empty")
	}
	if attached.Len() > 0 {
		parts = append(parts, llm.Part{Text: "<system-reminder>\nThe user attached these from their editor; they are context for the request above, " +
			"where each is named with @:\n" + attached.String() + "</system-reminder>"})
	}
	return parts, nil
}

// lineRange is a URI fragment naming lines: #L3, #L3:5, #L3-5, #L3-L5.
var lineRange = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^L(\d+)(?:[:-]L?(\d+))?$`) })

// mention names a resource for the model: a file URI as its path, with
// the lines its fragment names ("lines 3-5"); any other URI as it is.
func mention(uri string) (name, lines string) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return oneLine(uri, 500), ""
	}
	name = oneLine(u.Path, 500)
	if m := lineRange().FindStringSubmatch(u.Fragment); m != nil {
		if m[2] != "" && m[2] != m[1] {
			return name, "lines " + m[1] + "-" + m[2]
		}
		return name, "line " + m[1]
	}
	return name, ""
}

// paren is s in parentheses after a space, or "" for "".
func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// defuse keeps attached text from closing the block it is quoted in.
func defuse(s string) string {
	return strings.ReplaceAll(s, "</system-reminder>", "</system-reminder\u200b>")
}

// maxLine is the longest message line read; a longer one ends the
// connection (the protocol layer's own limit).
const maxLine = 10 << 20

// filterLines copies the lines of in that are JSON objects to out, and
// answers each other non-blank line on errs with a JSON-RPC error (parse
// error, or invalid request), so that a malformed message gets an answer
// and the connection goes on.
func filterLines(in io.Reader, out io.Writer, errs io.Writer, track *pending) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if code, msg := check(line); code != 0 {
			if _, err := errs.Write(errorLine(code, msg)); err != nil {
				return fmt.Errorf("answering a malformed message: %w", err)
			}
			continue
		}
		track.request(line)
		if _, err := out.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return sc.Err()
}

// JSON-RPC error codes for messages that never reach a handler.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// check says whether line is a message the protocol layer can take: 0, or
// the error code and message to answer with.
func check(line []byte) (int, string) {
	if !json.Valid(line) {
		return codeParseError, "Parse error: the message is not JSON"
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return codeInvalidRequest, "Invalid Request: the message is not a JSON object"
	}
	_, hasMethod := m["method"]
	_, hasID := m["id"]
	if !hasMethod && !hasID {
		return codeInvalidRequest, "Invalid Request: the message has neither method nor id"
	}
	if raw, ok := m["method"]; ok {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return codeInvalidRequest, "Invalid Request: method is not a string"
		}
	}
	return 0, ""
}

func errorLine(code int, msg string) []byte {
	b, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": msg},
	})
	if err != nil {
		panic(err) // a fixed shape always marshals
	}
	return append(b, '\n')
}
