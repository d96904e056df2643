package scheduler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/plyhq/ply/internal/tools"
)

// Argument validation has two layers. The library (jsonschema-go, chosen
// over a heavier one whose package initialiser alone cost 4–7 ms at every
// start) decides whether the arguments are valid, but says so in terms of
// schema locations. In front of it a pre-pass walks the schema and the
// arguments together for the keywords models get wrong — type, required,
// additionalProperties, enum, const, bounds, lengths, pattern, following
// properties, items, allOf, anyOf/oneOf and local $refs — and names the
// parameter, what was expected and what was found. The pre-pass is sound:
// everything it reports, the library rejects too (FuzzValidate checks
// that), so it only ever improves the message. What it does not cover
// falls through to a cleaned-up library message.

// externalPrefix starts the names of tools whose schemas ply does not
// write (MCP servers'; see the mcp package's ToolPrefix). A schema of
// theirs that cannot be compiled still leaves the tool callable.
const externalPrefix = "mcp__"

// schemaCache compiles each tool's schema once. It is keyed by tool name
// and checks the schema text, so a tool re-registered with a new schema is
// recompiled rather than validated against a stale one.
type schemaCache struct {
	mu sync.Mutex
	m  map[string]schemaEntry
}

type schemaEntry struct {
	src string
	sch *compiled
	err error
}

// get returns t's compiled schema. A nil *compiled (no schema) accepts any
// object.
func (c *schemaCache) get(t tools.Tool) (*compiled, error) {
	src := t.Schema()
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, nil // no schema: any object
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[t.Name()]; ok && e.src == string(src) {
		return e.sch, e.err
	}
	sch, err := compileSchema(src)
	if err != nil && strings.HasPrefix(t.Name(), externalPrefix) {
		// A server's schema ply cannot use: the call is checked for being
		// an object only and the server judges the rest. Nothing is
		// printed; the terminal belongs to the UI.
		sch, err = &compiled{}, nil
	}
	if c.m == nil {
		c.m = make(map[string]schemaEntry)
	}
	c.m[t.Name()] = schemaEntry{src: string(src), sch: sch, err: err}
	return sch, err
}

// CheckSchema reports whether src is a JSON Schema ply can validate
// arguments against, with the reason when it is not. --json-schema uses
// it to refuse a broken schema before any request.
func CheckSchema(src []byte) error {
	_, err := compileSchema(src)
	return err
}

// compiled is a schema ready to validate arguments.
type compiled struct {
	// root is the schema as decoded JSON (map[string]any or bool), after
	// normalize; nil accepts any object.
	root any
	// draft7 selects draft-07 rules ($ref hides its siblings, items as a
	// tuple, additionalItems); otherwise draft 2020-12, as the library.
	draft7 bool
	// localRefs: "#/..." references can be followed in root (no
	// subschema sets its own $id, which would change their base).
	localRefs bool
	// res is the library's schema, nil when only the pre-pass runs
	// ($dynamicRef, references the pre-pass cannot follow, or a $ref cycle
	// that would recurse without end in the library).
	res *jsonschema.Resolved
	// regexps holds the compiled pattern and patternProperties keys.
	regexps map[string]*regexp.Regexp
}

const (
	draft7URI    = "http://json-schema.org/draft-07/schema#"
	draft7URIs   = "https://json-schema.org/draft-07/schema#"
	draft2020URI = "https://json-schema.org/draft/2020-12/schema"
)

var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

func compileSchema(src []byte) (*compiled, error) {
	var root any
	if err := json.Unmarshal(src, &root); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	c := &compiled{root: root, regexps: map[string]*regexp.Regexp{}}
	var refs []string
	nestedID, dynamic := false, false
	switch r := root.(type) {
	case bool:
	case map[string]any:
		draft04 := false
		switch v := r["$schema"].(type) {
		case nil:
		case string:
			switch {
			case v == draft7URI || v == draft7URIs:
				c.draft7 = true
			case v == draft2020URI:
			case strings.Contains(v, "draft-04") || strings.Contains(v, "draft-06"):
				// Closest to draft-07, which the library knows.
				r["$schema"], c.draft7, draft04 = draft7URI, true, strings.Contains(v, "draft-04")
			default:
				// 2019-09 and unknown drafts: validated as 2020-12.
				delete(r, "$schema")
			}
		default:
			return nil, errors.New(`"$schema" must be a string`)
		}
		err := walkSchema(r, "", func(s map[string]any, at string) error {
			if at != "" {
				if _, ok := s["$id"]; ok {
					nestedID = true
				}
			}
			if ref, ok := s["$ref"].(string); ok {
				refs = append(refs, ref)
			}
			if _, ok := s["$dynamicRef"]; ok {
				dynamic = true
			}
			if draft04 {
				fixDraft04Bounds(s)
			}
			return c.checkKeywords(s, at)
		})
		if err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("a schema must be a JSON object or a boolean")
	}
	c.localRefs = !nestedID
	norm, err := json.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(norm, &s); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve schema: %s", strings.TrimPrefix(err.Error(), "jsonschema: "))
	}
	if !dynamic && c.localRefs && c.refsFollowable(refs) && !c.inPlaceCycle() {
		c.res = res
	}
	return c, nil
}

// checkKeywords checks what the library does not: the type names, and it
// compiles the regular expressions for the pre-pass.
func (c *compiled) checkKeywords(s map[string]any, at string) error {
	where := func() string {
		if at == "" {
			return "the schema"
		}
		return fmt.Sprintf("the schema at %q", at)
	}
	switch t := s["type"].(type) {
	case nil:
	case string:
		if !slices.Contains(jsonTypes, t) {
			return fmt.Errorf("%s: %q is not a JSON Schema type (one of %s)", where(), t, strings.Join(jsonTypes, ", "))
		}
	case []any:
		if len(t) == 0 {
			return fmt.Errorf(`%s: "type" is an empty list`, where())
		}
		for i, e := range t {
			n, ok := e.(string)
			if !ok || !slices.Contains(jsonTypes, n) || slices.Index(t, e) != i {
				return fmt.Errorf(`%s: "type" lists %v; each must be one of %s, once`, where(), e, strings.Join(jsonTypes, ", "))
			}
		}
	default:
		return fmt.Errorf(`%s: "type" must be a string or a list of strings`, where())
	}
	exprs := []string{}
	if p, ok := s["pattern"].(string); ok {
		exprs = append(exprs, p)
	}
	if pp, ok := s["patternProperties"].(map[string]any); ok {
		for p := range pp {
			exprs = append(exprs, p)
		}
	}
	for _, p := range exprs {
		if _, ok := c.regexps[p]; ok {
			continue
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return fmt.Errorf("%s: pattern %q: %v", where(), p, err)
		}
		c.regexps[p] = re
	}
	return nil
}

// fixDraft04Bounds rewrites draft-04's boolean exclusiveMinimum and
// exclusiveMaximum into the numbers later drafts use.
func fixDraft04Bounds(s map[string]any) {
	for _, k := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		ex, ok := s[k[0]].(bool)
		if !ok {
			continue
		}
		delete(s, k[0])
		if b, ok := s[k[1]]; ok && ex {
			s[k[0]] = b
			delete(s, k[1])
		}
	}
}

// Keywords whose values are subschemas.
var (
	schemaKeys     = []string{"additionalItems", "additionalProperties", "contains", "contentSchema", "else", "if", "items", "not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties"}
	schemaListKeys = []string{"allOf", "anyOf", "items", "oneOf", "prefixItems"}
	schemaMapKeys  = []string{"$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties", "properties"}
	// inPlaceKeys apply their subschemas to the same instance.
	inPlaceKeys     = []string{"else", "if", "not", "then"}
	inPlaceListKeys = []string{"allOf", "anyOf", "oneOf"}
	inPlaceMapKeys  = []string{"dependencies", "dependentSchemas"}
)

// walkSchema calls fn for s and every subschema under it, each with its
// JSON Pointer from the root.
func walkSchema(s map[string]any, at string, fn func(map[string]any, string) error) error {
	if err := fn(s, at); err != nil {
		return err
	}
	return eachSub(s, at, schemaKeys, schemaListKeys, schemaMapKeys, func(sub map[string]any, p string) error {
		return walkSchema(sub, p, fn)
	})
}

// eachSub calls fn for the object subschemas of s under the given
// keywords.
func eachSub(s map[string]any, at string, keys, listKeys, mapKeys []string, fn func(map[string]any, string) error) error {
	for _, k := range keys {
		if sub, ok := s[k].(map[string]any); ok {
			if err := fn(sub, at+"/"+k); err != nil {
				return err
			}
		}
	}
	for _, k := range listKeys {
		l, _ := s[k].([]any)
		for i, e := range l {
			if sub, ok := e.(map[string]any); ok {
				if err := fn(sub, at+"/"+k+"/"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range mapKeys {
		m, _ := s[k].(map[string]any)
		for _, name := range sortedKeys(m) {
			if sub, ok := m[name].(map[string]any); ok {
				if err := fn(sub, at+"/"+k+"/"+escapePointer(name)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

func escapePointer(s string) string { return pointerEscaper.Replace(s) }

// localRef returns the canonical pointer and the target of ref when it is
// a "#/..." reference into the root that can be followed.
func (c *compiled) localRef(ref string) (string, any, bool) {
	if !c.localRefs {
		return "", nil, false
	}
	u, err := url.Parse(ref)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path != "" || u.RawQuery != "" {
		return "", nil, false
	}
	frag := u.Fragment
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return "", nil, false // an anchor
	}
	v := c.root
	var canon strings.Builder
	if frag != "" {
		for _, seg := range strings.Split(frag[1:], "/") {
			seg = pointerUnescaper.Replace(seg)
			canon.WriteString("/" + escapePointer(seg))
			switch n := v.(type) {
			case map[string]any:
				v = n[seg]
			case []any:
				i, err := strconv.Atoi(seg)
				if err != nil || i < 0 || i >= len(n) {
					return "", nil, false
				}
				v = n[i]
			default:
				return "", nil, false
			}
		}
	}
	switch v.(type) {
	case map[string]any, bool:
		return canon.String(), v, true
	}
	return "", nil, false
}

func (c *compiled) refsFollowable(refs []string) bool {
	for _, r := range refs {
		if _, _, ok := c.localRef(r); !ok {
			return false
		}
	}
	return true
}

// inPlaceCycle reports whether some subschema reaches itself through $ref
// and the keywords that apply to the same instance: the library would
// recurse until the stack overflows, which no recover catches.
func (c *compiled) inPlaceCycle() bool {
	root, ok := c.root.(map[string]any)
	if !ok {
		return false
	}
	nodes := map[string]map[string]any{}
	_ = walkSchema(root, "", func(s map[string]any, at string) error {
		nodes[at] = s
		return nil
	})
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var visit func(at string) bool
	visit = func(at string) bool {
		switch state[at] {
		case visiting:
			return true
		case done:
			return false
		}
		state[at] = visiting
		s := nodes[at]
		cyc := false
		if ref, ok := s["$ref"].(string); ok {
			if p, _, ok := c.localRef(ref); ok && nodes[p] != nil {
				cyc = visit(p)
			}
		}
		if !cyc {
			cyc = eachSub(s, at, inPlaceKeys, inPlaceListKeys, inPlaceMapKeys, func(_ map[string]any, p string) error {
				if visit(p) {
					return errCycle
				}
				return nil
			}) != nil
		}
		state[at] = done
		return cyc
	}
	for _, at := range sortedKeys(nodes) {
		if visit(at) {
			return true
		}
	}
	return false
}

var errCycle = errors.New("cycle")
