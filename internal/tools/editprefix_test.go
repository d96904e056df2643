package tools

import "testing"

// TestEditToleratesReadFilePrefixes: read_file shows "     3\tline"; a
// model that pastes those prefixes into old_string (and new_string) still
// edits the right lines, and the prefixes never reach the file.
func TestEditToleratesReadFilePrefixes(t *testing.T) {
	content := "package a\n\nfunc f() {\n\treturn 1\n}\n"
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"both prefixed", "     4\t\treturn 1\n     5\t}", "     4\t\treturn 2\n     5\t}",
			"package a\n\nfunc f() {\n\treturn 2\n}\n"},
		{"old only", "     4\t\treturn 1", "\treturn 3",
			"package a\n\nfunc f() {\n\treturn 3\n}\n"},
		{"one line, seven columns", "1000004\t\treturn 1", "\treturn 4",
			"package a\n\nfunc f() {\n\treturn 4\n}\n"},
	} {
		got, n, err := applyEdit(content, tc.old, tc.new, false)
		if err != nil || n != 1 || got != tc.want {
			t.Errorf("%s: got %q, %d, %v; want %q", tc.name, got, n, err, tc.want)
		}
	}
	// A file whose text really starts with digits and a tab is matched
	// as it is: prefixes are only stripped when nothing matched.
	tsv := "1\tone\n2\ttwo\n"
	got, _, err := applyEdit(tsv, "2\ttwo", "2\tzwei", false)
	if err != nil || got != "1\tone\n2\tzwei\n" {
		t.Errorf("tsv: %q, %v", got, err)
	}
	// Lines without the prefix shape are not touched.
	if _, _, err := applyEdit(content, "     4 \treturn 1", "x", false); err == nil {
		t.Error("a near-prefix was stripped")
	}
}
