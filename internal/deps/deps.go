package deps
import (
 _ "go.uber.org/goleak"
 _ "mvdan.cc/sh/v3/syntax"
 _ "github.com/santhosh-tekuri/jsonschema/v6"
 _ "github.com/bmatcuk/doublestar/v4"
 _ "github.com/google/uuid"
)
