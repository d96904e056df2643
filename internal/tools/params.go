package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// decodeArgs decodes a tool's arguments into v, a pointer to a struct,
// returning an error Result when they are not the expected object.
//
// A number parameter given as a string of digits ("limit": "50"), which
// models write now and then, is read as the number: refusing it only
// costs a retry. The schemas allow a string beside the number so that
// the scheduler's check lets such strings through; one that holds no
// number is refused here, naming the parameter.
func decodeArgs(args json.RawMessage, v any) *Result {
	if len(bytes.TrimSpace(args)) == 0 {
		r := Errorf("INVALID_TOOL_PARAMS", "missing arguments: expected a JSON object")
		return &r
	}
	err := json.Unmarshal(args, v)
	if err == nil {
		return nil
	}
	fixed, ok, bad := unquoteNumbers(args, v)
	if ok && json.Unmarshal(fixed, v) == nil {
		return nil
	}
	if bad != "" {
		r := Errorf("INVALID_TOOL_PARAMS", "invalid arguments: %s", bad)
		return &r
	}
	r := Errorf("INVALID_TOOL_PARAMS", "invalid arguments: %v", err)
	return &r
}

// unquoteNumbers rewrites the string values of args that stand for
// number fields of v (by their JSON names) and hold a number, as that
// number. ok is false when nothing was rewritten; bad describes a string
// given for a number field that holds no number.
func unquoteNumbers(args json.RawMessage, v any) (out json.RawMessage, ok bool, bad string) {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil, false, ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return nil, false, ""
	}
	changed := false
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		integer := false
		switch ft.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			integer = true
		case reflect.Float32, reflect.Float64:
		default:
			continue
		}
		raw, ok := obj[name]
		if !ok || len(raw) == 0 || raw[0] != '"' {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		s = strings.TrimSpace(s)
		if integer {
			if _, err := strconv.ParseInt(s, 10, 64); err != nil {
				bad = fmt.Sprintf("%s must be an integer, got %q", name, s)
				continue
			}
		} else if _, err := strconv.ParseFloat(s, 64); err != nil || !json.Valid([]byte(s)) {
			bad = fmt.Sprintf("%s must be a number, got %q", name, s)
			continue
		}
		obj[name] = json.RawMessage(s)
		changed = true
	}
	if !changed {
		return nil, false, bad
	}
	out, err := json.Marshal(obj)
	return out, err == nil && bad == "", bad
}
