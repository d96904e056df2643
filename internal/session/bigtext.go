package session

import (
	"bufio"

	"github.com/plyhq/ply/internal/bigjson"
	"github.com/plyhq/ply/internal/llm"
)

// bigText is the size from which a message's text is not copied into its
// transcript line at all: the line keeps a reference to the text, which
// the history holds anyway, and the writer goroutine escapes it straight
// into the file (package bigjson). Through encoding/json, whose buffer
// grows by doubling and is then copied, a 50 MB reply cost 150 MB more.
var bigText = bigjson.Min // a variable for tests

// encodeEntry returns prefix followed by m encoded as encodeTo would (no
// trailing newline), as pieces: texts of bigText bytes or more stay
// references, to be escaped when written.
func encodeEntry(prefix string, m llm.Message) (bigjson.Pieces, error) {
	var h bigjson.Holder
	return h.Encode(prefix, withoutBigTexts(m, &h))
}

// writeParts writes the pieces to w, escaping the texts.
func writeParts(w *bufio.Writer, parts bigjson.Pieces) error { return parts.Write(w) }

// withoutBigTexts returns a copy of m whose big texts are held by h.
func withoutBigTexts(m llm.Message, h *bigjson.Holder) llm.Message {
	var parts []llm.Part
	for i, p := range m.Parts {
		big := len(p.Text) >= bigText || (p.Response != nil && len(p.Response.Output) >= bigText)
		if !big {
			continue
		}
		if parts == nil {
			parts = append([]llm.Part(nil), m.Parts...)
		}
		// Field order in the encoding: text comes before response.
		if len(p.Text) >= bigText {
			parts[i].Text = h.Hold(p.Text)
		}
		if p.Response != nil && len(p.Response.Output) >= bigText {
			r := *p.Response
			r.Output = h.Hold(p.Response.Output)
			parts[i].Response = &r
		}
	}
	if parts == nil {
		return m
	}
	m.Parts = parts
	return m
}
