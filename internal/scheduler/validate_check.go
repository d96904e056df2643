package scheduler

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// validate checks v, decoded with UseNumber, and returns the problems as
// sentences; none when v is valid.
func (c *compiled) validate(v any) []string {
	if c == nil || c.root == nil {
		return nil
	}
	v = plainNumbers(v)
	w := walker{c: c}
	w.check(v, c.root, nil, 0)
	if len(w.probs) > 0 {
		msgs := make([]string, len(w.probs))
		for i, p := range w.probs {
			msgs[i] = p.msg
		}
		return msgs
	}
	if c.res == nil {
		return nil
	}
	if err := c.libValidate(v); err != nil {
		return []string{libMessage(err)}
	}
	return nil
}

// libValidate runs the library, which must not take ply down: a panic in
// it counts as valid (the pre-pass found nothing; the tool judges).
func (c *compiled) libValidate(v any) (err error) {
	defer func() {
		if recover() != nil {
			err = nil
		}
	}()
	return c.res.Validate(v)
}

// joinProblems joins up to five problems, saying how many more there are.
func joinProblems(msgs []string) string {
	msgs = slices.Compact(msgs)
	const maxMsgs = 5
	if len(msgs) > maxMsgs {
		msgs = append(msgs[:maxMsgs:maxMsgs], fmt.Sprintf("and %d more problems", len(msgs)-maxMsgs))
	}
	return strings.Join(msgs, "; ")
}

// plainNumbers replaces the json.Numbers in v by int64 or float64, which
// the library's type checks understand (a json.Number is a string to
// reflection). Out-of-range numbers become the nearest finite ones, so
// that they stay integers or fractions and compare as far beyond bounds.
func plainNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		switch {
		case math.IsInf(f, 1):
			return math.MaxFloat64
		case math.IsInf(f, -1):
			return -math.MaxFloat64
		case math.IsNaN(f):
			return 0.0
		case f == 0 && underflows(string(x)):
			// Keep it a fraction, not an integer zero.
			return math.Copysign(math.SmallestNonzeroFloat64, f)
		}
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = plainNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = plainNumbers(e)
		}
	}
	return v
}

// underflows reports whether the number text n has a non-zero digit
// before its exponent (so it is not zero, though it parses as 0).
func underflows(n string) bool {
	mant, _, _ := strings.Cut(strings.ToLower(n), "e")
	return strings.ContainsAny(mant, "123456789")
}

// problem is one thing wrong with the arguments.
type problem struct {
	path string   // instance location: "", "opts.n", "items.0.name"
	msg  string   // the sentence for the model
	want []string // a type problem's wanted types; nil otherwise
	got  string
}

// walker is one pre-pass over the arguments.
type walker struct {
	c     *compiled
	probs []problem
	steps int
}

// Limits of the pre-pass: beyond them it stops looking, and the library
// has the last word.
const (
	maxCheckDepth = 128
	maxCheckSteps = 100_000
)

func (w *walker) add(path []string, msg string) {
	w.probs = append(w.probs, problem{path: strings.Join(path, "."), msg: msg})
}

// check applies schema s to the instance v at path.
func (w *walker) check(v, s any, path []string, depth int) {
	w.steps++
	if depth > maxCheckDepth || w.steps > maxCheckSteps {
		return
	}
	switch b := s.(type) {
	case bool:
		if !b {
			if len(path) == 0 {
				w.add(path, "the tool accepts no arguments")
			} else {
				w.add(path, fmt.Sprintf("parameter %q is not allowed", strings.Join(path, ".")))
			}
		}
		return
	case map[string]any:
		w.checkObject(v, b, path, depth)
	}
}

func (w *walker) checkObject(v any, s map[string]any, path []string, depth int) {
	if ref, ok := s["$ref"].(string); ok {
		if _, target, ok := w.c.localRef(ref); ok {
			w.check(v, target, path, depth+1)
		}
		if w.c.draft7 {
			return // draft-07: "All other properties in a "$ref" object MUST be ignored."
		}
	}
	name := strings.Join(path, ".")
	subject := func() string {
		if name == "" {
			return "the arguments"
		}
		return fmt.Sprintf("parameter %q", name)
	}
	if t, ok := s["type"]; ok {
		want := typeList(t)
		if !slices.ContainsFunc(want, func(n string) bool { return hasType(v, n) }) {
			got := typeName(v)
			w.probs = append(w.probs, problem{path: name, want: want, got: got,
				msg: fmt.Sprintf("%s must be %s, got %s", subject(), strings.Join(want, " or "), got)})
			return
		}
	}
	if e, ok := s["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return jsonschema.Equal(x, v) }) {
		w.add(path, fmt.Sprintf("%s must be one of %s, got %s", subject(), jsonList(e), shortJSON(v)))
	}
	if k, ok := s["const"]; ok && !jsonschema.Equal(k, v) {
		w.add(path, fmt.Sprintf("%s must be %s, got %s", subject(), shortJSON(k), shortJSON(v)))
	}
	if n, ok := numberRat(v); ok {
		w.checkBounds(n, v, s, path, subject)
	}
	if str, ok := v.(string); ok {
		n := utf8.RuneCountInString(str)
		if m, ok := intKeyword(s, "minLength"); ok && n < m {
			w.add(path, fmt.Sprintf("%s must be at least %s long, got %d", subject(), plural(m, "character"), n))
		}
		if m, ok := intKeyword(s, "maxLength"); ok && n > m {
			w.add(path, fmt.Sprintf("%s must be at most %s long, got %d", subject(), plural(m, "character"), n))
		}
		if p, ok := s["pattern"].(string); ok {
			if re := w.c.regexps[p]; re != nil && !re.MatchString(str) {
				w.add(path, fmt.Sprintf("%s must match the regular expression %q, got %s", subject(), p, shortJSON(str)))
			}
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			w.check(v, sub, path, depth+1)
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			w.checkAlternatives(v, alts, path, depth, subject)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		w.checkProperties(x, s, path, depth)
	case []any:
		w.checkItems(x, s, path, depth, subject)
	}
}

func (w *walker) checkBounds(n *big.Rat, v any, s map[string]any, path []string, subject func() string) {
	bound := func(k string) (*big.Rat, float64, bool) {
		f, ok := s[k].(float64)
		if !ok {
			return nil, 0, false
		}
		r := new(big.Rat).SetFloat64(f)
		return r, f, r != nil
	}
	got := shortJSON(v)
	for _, b := range []struct {
		key, words string
		bad        func(c int) bool
	}{
		{"minimum", "at least", func(c int) bool { return c < 0 }},
		{"exclusiveMinimum", "greater than", func(c int) bool { return c <= 0 }},
		{"maximum", "at most", func(c int) bool { return c > 0 }},
		{"exclusiveMaximum", "less than", func(c int) bool { return c >= 0 }},
	} {
		if r, f, ok := bound(b.key); ok && b.bad(n.Cmp(r)) {
			w.add(path, fmt.Sprintf("%s must be %s %s, got %s", subject(), b.words, strconv.FormatFloat(f, 'g', -1, 64), got))
		}
	}
}

// checkAlternatives reports anyOf/oneOf only when every alternative fails
// the pre-pass (then each fails the library too); a type mismatch with
// each becomes one sentence listing the types.
func (w *walker) checkAlternatives(v any, alts []any, path []string, depth int, subject func() string) {
	var firsts []problem
	types := []string{}
	onlyTypes := true
	for _, alt := range alts {
		sub := walker{c: w.c, steps: w.steps}
		sub.check(v, alt, path, depth+1)
		w.steps = sub.steps
		if len(sub.probs) == 0 {
			return // may match: the library decides
		}
		p := sub.probs[0]
		firsts = append(firsts, p)
		if len(sub.probs) == 1 && p.want != nil && p.path == strings.Join(path, ".") {
			for _, t := range p.want {
				if !slices.Contains(types, t) {
					types = append(types, t)
				}
			}
		} else {
			onlyTypes = false
		}
	}
	if onlyTypes {
		w.probs = append(w.probs, problem{path: strings.Join(path, "."), want: types, got: typeName(v),
			msg: fmt.Sprintf("%s must be %s, got %s", subject(), strings.Join(types, " or "), typeName(v))})
		return
	}
	const maxAlts = 3
	var parts []string
	for i, p := range firsts {
		if i == maxAlts {
			parts = append(parts, fmt.Sprintf("or %d more", len(firsts)-maxAlts))
			break
		}
		parts = append(parts, fmt.Sprintf("(%d) %s", i+1, p.msg))
	}
	w.add(path, fmt.Sprintf("%s matches none of the %d allowed forms: %s", subject(), len(alts), strings.Join(parts, "; ")))
}

func (w *walker) checkProperties(m map[string]any, s map[string]any, path []string, depth int) {
	child := func(k string) []string { return append(slices.Clip(path), k) }
	qualified := func(k string) string { return strings.Join(child(k), ".") }
	if req, ok := s["required"].([]any); ok {
		var missing []string
		for _, r := range req {
			if k, ok := r.(string); ok {
				if _, present := m[k]; !present && !slices.Contains(missing, strconv.Quote(qualified(k))) {
					missing = append(missing, strconv.Quote(qualified(k)))
				}
			}
		}
		switch len(missing) {
		case 0:
		case 1:
			w.add(path, "missing required parameter "+missing[0])
		default:
			w.add(path, "missing required parameters "+strings.Join(missing, ", "))
		}
	}
	props, _ := s["properties"].(map[string]any)
	patterns, _ := s["patternProperties"].(map[string]any)
	addl, hasAddl := s["additionalProperties"]
	var unknown []string
	for _, k := range sortedKeys(m) {
		val := m[k]
		sub, known := props[k]
		if known {
			w.check(val, sub, child(k), depth+1)
		}
		for _, p := range sortedKeys(patterns) {
			if re := w.c.regexps[p]; re != nil && re.MatchString(k) {
				known = true
				w.check(val, patterns[p], child(k), depth+1)
			} else if re == nil {
				known = true // cannot tell: not additional
			}
		}
		if known || !hasAddl {
			continue
		}
		if b, ok := addl.(bool); ok && !b {
			unknown = append(unknown, strconv.Quote(qualified(k)))
			continue
		}
		w.check(val, addl, child(k), depth+1)
	}
	if len(unknown) > 0 {
		msg := "unknown parameter "
		if len(unknown) > 1 {
			msg = "unknown parameters "
		}
		msg += strings.Join(unknown, ", ")
		if names := sortedKeys(props); len(names) > 0 && len(names) <= 20 {
			q := make([]string, len(names))
			for i, n := range names {
				q[i] = strconv.Quote(n)
			}
			if len(path) == 0 {
				msg += " (the parameters are " + strings.Join(q, ", ") + ")"
			} else {
				msg += fmt.Sprintf(" (%q takes %s)", strings.Join(path, "."), strings.Join(q, ", "))
			}
		}
		w.add(path, msg)
	}
}

func (w *walker) checkItems(a []any, s map[string]any, path []string, depth int, subject func() string) {
	child := func(i int) []string { return append(slices.Clip(path), strconv.Itoa(i)) }
	rest := 0
	var restSchema any
	if w.c.draft7 {
		if tuple, ok := s["items"].([]any); ok {
			for i := 0; i < len(tuple) && i < len(a); i++ {
				w.check(a[i], tuple[i], child(i), depth+1)
			}
			rest, restSchema = len(tuple), s["additionalItems"]
		} else {
			restSchema = s["items"]
		}
	} else {
		prefix, _ := s["prefixItems"].([]any)
		for i := 0; i < len(prefix) && i < len(a); i++ {
			w.check(a[i], prefix[i], child(i), depth+1)
		}
		rest = len(prefix)
		if _, isList := s["items"].([]any); !isList {
			restSchema = s["items"]
		}
	}
	if restSchema != nil {
		for i := rest; i < len(a); i++ {
			w.check(a[i], restSchema, child(i), depth+1)
		}
	}
	if m, ok := intKeyword(s, "minItems"); ok && len(a) < m {
		w.add(path, fmt.Sprintf("%s must have at least %s, got %d", subject(), plural(m, "item"), len(a)))
	}
	if m, ok := intKeyword(s, "maxItems"); ok && len(a) > m {
		w.add(path, fmt.Sprintf("%s must have at most %s, got %d", subject(), plural(m, "item"), len(a)))
	}
}
