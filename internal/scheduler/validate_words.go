package scheduler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds how the checker names what it found: values and types
// in words, and the schema library's messages turned into the checker's.

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func typeList(t any) []string {
	switch x := t.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// hasType is the library's notion of a JSON type, for v after
// plainNumbers.
func hasType(v any, t string) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case int64:
		return t == "integer" || t == "number"
	case float64:
		if t == "number" {
			return true
		}
		_, frac := math.Modf(x)
		return t == "integer" && frac == 0
	case string:
		return t == "string"
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

// typeName names v's type in the words of the messages: every number is
// "number".
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int64, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

func numberRat(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x), true
	case float64:
		r := new(big.Rat).SetFloat64(x)
		return r, r != nil
	}
	return nil, false
}

// intKeyword reads a non-negative integer keyword (minLength and the
// like) as the library does.
func intKeyword(s map[string]any, k string) (int, bool) {
	f, ok := s[k].(float64)
	if !ok || f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// shortJSON is v as JSON, shortened for a message.
func shortJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	const maxLen = 80
	if len(b) > maxLen {
		cut := maxLen
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}

func jsonList(vs []any) string {
	const maxVals = 10
	parts := make([]string, 0, min(len(vs), maxVals)+1)
	for i, v := range vs {
		if i == maxVals {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(vs)-maxVals))
			break
		}
		parts = append(parts, shortJSON(v))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// libMessage turns the library's error, "validating root: validating
// /properties/a: keyword: detail", into a sentence naming the parameter
// when the schema location shows it.
func libMessage(err error) string {
	msg := err.Error()
	param := ""
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		at, after, ok := strings.Cut(rest, ": ")
		if !ok {
			break
		}
		if p := paramFromSchemaPath(at); p != "" {
			param = p
		}
		msg = after
	}
	keyword, detail, _ := strings.Cut(msg, ": ")
	if i := strings.IndexByte(detail, '\n'); i >= 0 {
		detail = detail[:i]
	}
	switch keyword {
	case "anyOf":
		detail = "must match at least one of the allowed forms (anyOf)"
	case "oneOf":
		if strings.HasPrefix(detail, "validated against both") {
			detail = "matches more than one of the allowed forms, and must match exactly one (oneOf)"
		} else {
			detail = "must match exactly one of the allowed forms (oneOf)"
		}
	case "not":
		detail = `must not match the schema under "not"`
	case "uniqueItems":
		detail = "must not contain equal items: " + strings.TrimPrefix(detail, "array ")
	default:
		detail = keyword + ": " + trimFloats(detail)
	}
	const maxLen = 300
	if len(detail) > maxLen {
		cut := maxLen
		for cut > 0 && !utf8.RuneStart(detail[cut]) {
			cut--
		}
		detail = detail[:cut] + "…"
	}
	if param != "" {
		return fmt.Sprintf("parameter %q: %s", param, detail)
	}
	return "arguments: " + detail
}

// paramFromSchemaPath names the parameter a schema location is about when
// it is a chain of properties and items: /properties/a/items/properties/b
// is "a.*.b". Anything else (a $defs entry, an anyOf branch) stops it.
func paramFromSchemaPath(loc string) string {
	if !strings.HasPrefix(loc, "/") {
		return ""
	}
	segs := strings.Split(loc[1:], "/")
	var out []string
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties":
			if i+1 < len(segs) {
				out = append(out, pointerUnescaper.Replace(segs[i+1]))
				i++
				continue
			}
		case "items":
			out = append(out, "*")
			continue
		case "prefixItems":
			if i+1 < len(segs) {
				out = append(out, segs[i+1])
				i++
				continue
			}
		}
		break
	}
	return strings.Join(out, ".")
}

// trimFloats writes the library's %f bounds ("1.000000", "2.500000")
// without their trailing zeros, and its whole rationals ("3/1") as
// integers.
func trimFloats(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "/1") && i > 0 && isDigit(s[i-1]) && (i+2 == len(s) || !isDigit(s[i+2])) {
			i += 2
			continue
		}
		if s[i] != '.' || i == 0 || !isDigit(s[i-1]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		frac := strings.TrimRight(s[i+1:j], "0")
		if frac != "" {
			b.WriteString("." + frac)
		}
		i = j
	}
	return b.String()
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
