package chat

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// windowReport is what a provider's context-length error says about the
// sizes involved, in tokens; a zero field was not stated.
type windowReport struct {
	// Max is the model's context window (or the most the prompt may take).
	Max int
	// Prompt is the size of the refused request's input.
	Prompt int
	// Completion is the output the request reserved, when the provider
	// counts it against the window.
	Completion int
}

// num matches a token count, allowing thousands separators ("200,000").
const num = `(\d[\d,_]{0,15})`

// windowPatterns read the numbers out of the wordings in use. Each names
// which field each group fills, in order. They are compiled at the first
// refusal, not at every start.
var windowPatterns = sync.OnceValue(func() []windowPattern {
	return []windowPattern{
		// OpenAI and the servers copying it (vLLM, ...): "This model's maximum
		// context length is 8192 tokens. However, your messages resulted in
		// 9000 tokens." or "... you requested 9000 tokens (8000 in the
		// messages, 1000 in the completion)".
		{regexp.MustCompile(`maximum context length is ` + num + ` tokens`), "m"},
		{regexp.MustCompile(`resulted in ` + num + ` tokens`), "p"},
		{regexp.MustCompile(`requested ` + num + ` tokens \(` + num + ` in the messages, ` + num + ` in the completion\)`), "_pc"},
		// Anthropic: "prompt is too long: 210000 tokens > 200000 maximum".
		{regexp.MustCompile(`prompt is too long: ` + num + ` tokens > ` + num + ` maximum`), "pm"},
		// Gemini: "The input token count (1234567) exceeds the maximum number
		// of tokens allowed (1048576)."
		{regexp.MustCompile(`input token count \(` + num + `\) exceeds the maximum number of tokens allowed \(` + num + `\)`), "pm"},
		// llama.cpp: "request (5000 tokens) exceeds the available context
		// size (4096 tokens)".
		{regexp.MustCompile(`request \(` + num + ` tokens\) exceeds the available context size \(` + num + ` tokens\)`), "pm"},
	}
})

type windowPattern struct {
	re     *regexp.Regexp
	fields string // one letter per group: m(ax), p(rompt), c(ompletion)
}

// parseWindowReport reads the sizes from a context-length error message.
// What it cannot find stays zero; it never fails.
func parseWindowReport(msg string) windowReport {
	var r windowReport
	if len(msg) > 4096 {
		msg = msg[:4096] // the numbers come early; bound the work
	}
	msg = strings.ToLower(msg)
	for _, p := range windowPatterns() {
		m := p.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		for i, f := range p.fields {
			n := atoi(m[i+1])
			switch f {
			case 'm':
				r.Max = cmpOr(r.Max, n)
			case 'p':
				r.Prompt = cmpOr(r.Prompt, n)
			case 'c':
				r.Completion = cmpOr(r.Completion, n)
			}
		}
	}
	return r
}

// atoi reads a count with separators; an overflowing or odd one is 0.
func atoi(s string) int {
	s = strings.NewReplacer(",", "", "_", "").Replace(s)
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<40 {
		return 0
	}
	return n
}

// cmpOr keeps the first value found.
func cmpOr(old, n int) int {
	if old != 0 {
		return old
	}
	return n
}
