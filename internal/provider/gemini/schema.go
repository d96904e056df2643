package gemini

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Gemini's function parameters are an OpenAPI 3.0 Schema subset, not JSON
// Schema: unknown keywords ($schema, additionalProperties, const, $ref,
// oneOf, ...) fail the whole request with INVALID_ARGUMENT, and a type is
// one name, not a list. Tool schemas come from ply's own tools and from
// MCP servers, written for JSON Schema, so they are cut down here.

// passThrough are the keywords Gemini's Schema has with JSON Schema's
// meaning.
var passThrough = map[string]bool{
	"title": true, "description": true, "nullable": true, "default": true, "example": true,
	"minItems": true, "maxItems": true, "minProperties": true, "maxProperties": true,
	"minLength": true, "maxLength": true, "pattern": true, "minimum": true, "maximum": true,
	"propertyOrdering": true,
}

// formats are the format values Gemini accepts; others are dropped.
var formats = map[string]bool{
	"enum": true, "date-time": true, "int32": true, "int64": true, "float": true, "double": true,
}

// maxSchemaDepth bounds nesting and $ref expansion, which a recursive
// schema would otherwise make endless; maxSchemaNodes bounds the total
// work, since references can also fan out (every allOf entry pointing at
// the root doubles the tree at each level).
const (
	maxSchemaDepth = 16
	maxSchemaNodes = 5000
)

// convertSchema converts a tool's JSON Schema. It returns nil, meaning
// "send no parameters", for a tool without any: Gemini rejects an object
// schema with empty properties. A schema that is not a JSON object is
// treated the same way rather than failing every request; the tool's own
// argument validation still runs when the model calls it.
func convertSchema(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep numbers as written
	var v any
	if dec.Decode(&v) != nil {
		return nil, nil
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, nil
	}
	c := schemaConverter{root: root, budget: new(int)}
	*c.budget = maxSchemaNodes
	out := c.clean(root, 0)
	if props, _ := out["properties"].(map[string]any); len(props) == 0 {
		return nil, nil
	}
	out["type"] = "OBJECT"
	return out, nil
}

type schemaConverter struct {
	root   map[string]any
	budget *int // nodes left to convert
}

// clean returns the Gemini form of one schema node.
func (c schemaConverter) clean(n map[string]any, depth int) map[string]any {
	out := map[string]any{}
	if depth > maxSchemaDepth || *c.budget <= 0 {
		return out
	}
	*c.budget--
	if ref, ok := n["$ref"].(string); ok {
		if target := c.resolve(ref); target != nil {
			for k, v := range c.clean(target, depth+1) {
				out[k] = v
			}
		}
	}
	for k, v := range n {
		switch k {
		case "type":
			c.setType(out, v)
		case "properties":
			if props, ok := v.(map[string]any); ok {
				cp := map[string]any{}
				for name, p := range props {
					if pm, ok := p.(map[string]any); ok {
						cp[name] = c.clean(pm, depth+1)
					}
				}
				out["properties"] = cp
			}
		case "items":
			switch it := v.(type) {
			case map[string]any:
				out["items"] = c.clean(it, depth+1)
			case []any: // tuple form: the first item type stands for all
				if len(it) > 0 {
					if m, ok := it[0].(map[string]any); ok {
						out["items"] = c.clean(m, depth+1)
					}
				}
			}
		case "anyOf", "oneOf":
			// Gemini has anyOf only; for describing arguments oneOf's
			// exclusivity does not matter.
			if list, ok := v.([]any); ok {
				prev, _ := out["anyOf"].([]any)
				for _, s := range list {
					if m, ok := s.(map[string]any); ok {
						prev = append(prev, c.clean(m, depth+1))
					}
				}
				out["anyOf"] = prev
			}
		case "enum":
			if e := stringEnum(v); e != nil {
				out["enum"] = e
			}
		case "const":
			if s, ok := v.(string); ok {
				out["enum"] = []any{s}
			}
		case "format":
			if s, ok := v.(string); ok && formats[s] {
				out["format"] = s
			}
		case "examples":
			if list, ok := v.([]any); ok && len(list) > 0 {
				if _, set := n["example"]; !set {
					out["example"] = list[0]
				}
			}
		default:
			if passThrough[k] {
				out[k] = v
			}
		}
	}
	// allOf is folded in after the node's own keywords, which win, so
	// that the result does not depend on map order.
	if list, ok := n["allOf"].([]any); ok {
		for _, s := range list {
			if m, ok := s.(map[string]any); ok {
				mergeSchema(out, c.clean(m, depth+1))
			}
		}
	}
	// Gemini rejects a required name that is not a property.
	props, _ := out["properties"].(map[string]any)
	var keep []any
	seen := map[string]bool{}
	for _, r := range append(anySlice(out["required"]), anySlice(n["required"])...) {
		if s, ok := r.(string); ok && props[s] != nil && !seen[s] {
			seen[s] = true
			keep = append(keep, s)
		}
	}
	delete(out, "required")
	if len(keep) > 0 {
		out["required"] = keep
	}
	return out
}

// setType writes a JSON Schema type as Gemini's: one upper-case name, with
// "null" turned into nullable and several names into anyOf.
func (c schemaConverter) setType(out map[string]any, v any) {
	var names []string
	switch t := v.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
	}
	var types []string
	for _, s := range names {
		if s == "null" {
			out["nullable"] = true
			continue
		}
		types = append(types, strings.ToUpper(s))
	}
	switch len(types) {
	case 0:
	case 1:
		out["type"] = types[0]
	default:
		var alts []any
		for _, t := range types {
			alts = append(alts, map[string]any{"type": t})
		}
		out["anyOf"] = append(alts, anySlice(out["anyOf"])...)
	}
}

// resolve follows a local reference such as "#/$defs/Point".
func (c schemaConverter) resolve(ref string) map[string]any {
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	var cur any = c.root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	m, _ := cur.(map[string]any)
	return m
}

// mergeSchema folds src into dst for allOf: properties and required are
// combined, other keywords are taken when dst has none.
func mergeSchema(dst, src map[string]any) {
	for k, v := range src {
		switch k {
		case "properties":
			dp, _ := dst["properties"].(map[string]any)
			if dp == nil {
				dp = map[string]any{}
			}
			for name, p := range v.(map[string]any) {
				dp[name] = p
			}
			dst["properties"] = dp
		case "required":
			dst["required"] = append(anySlice(dst["required"]), anySlice(v)...)
		default:
			if _, ok := dst[k]; !ok {
				dst[k] = v
			}
		}
	}
}

func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// stringEnum returns v when it is a list of strings: Gemini's enum is for
// STRING only, and a numeric enum sent as strings would contradict the
// type.
func stringEnum(v any) []any {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil
	}
	for _, x := range list {
		if _, ok := x.(string); !ok {
			return nil
		}
	}
	return list
}
