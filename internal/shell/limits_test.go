package shell

import (
	"errors"
	"strings"
	"testing"
)

// A command nested deeper than the parser's stack allows, or longer than
// the classifier reads, is refused before parsing: not read-only, opaque,
// and an error that names the limit.
func TestOversizedCommandsFailClosed(t *testing.T) {
	for name, cmd := range map[string]string{
		"deep parentheses":   strings.Repeat("(", 250000),
		"deep substitutions": "echo " + strings.Repeat("$(", 100000),
		"deep braces":        strings.Repeat("{ ", 100000),
		"just too deep":      strings.Repeat("( ", maxNesting+1) + "ls" + strings.Repeat(" )", maxNesting+1),
		"too long":           "ls " + strings.Repeat("a", maxCommandBytes),
	} {
		if IsReadOnly(cmd) {
			t.Errorf("%s: IsReadOnly = true", name)
		}
		if IsReadOnlyIn(cmd, []string{t.TempDir()}, "") {
			t.Errorf("%s: IsReadOnlyIn = true", name)
		}
		reason, ok := Opaque(cmd)
		if !ok || !strings.Contains(reason, "limit") {
			t.Errorf("%s: Opaque = %q, %v; want opaque, naming the limit", name, reason, ok)
		}
		_, err := SimpleCommands(cmd)
		if !errors.Is(err, ErrLimit) || !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "limit") {
			t.Errorf("%s: SimpleCommands error %v; want ErrLimit and ErrParse, naming the limit", name, err)
		}
	}
	// Within the limits, nesting still parses.
	ok := strings.Repeat("( ", maxNesting-1) + "ls" + strings.Repeat(" )", maxNesting-1)
	if !IsReadOnly(ok) {
		t.Errorf("IsReadOnly of %d nested subshells = false", maxNesting-1)
	}
	// Closing brackets inside quotes do not hide real nesting.
	hidden := strings.Repeat("( echo ')'; ", maxNesting+1) + "ls" + strings.Repeat(" )", maxNesting+1)
	if _, err := parse(strings.Repeat("( echo ')'; ", 3) + "ls" + strings.Repeat(" )", 3)); err != nil {
		t.Fatalf("the nesting sample does not parse: %v", err)
	}
	if _, err := SimpleCommands(hidden); !errors.Is(err, ErrLimit) {
		t.Errorf("nesting hidden behind quoted closers: error %v, want ErrLimit", err)
	}
}
