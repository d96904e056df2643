package spell

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"byte.go", "bytes.go", 1}, {"read", "read", 0}} {
		if d := Distance(tc.a, tc.b); d != tc.d || Distance(tc.b, tc.a) != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"read_file", "write_file", "read_many_files", "edit"}
	got := Closest("Read-File", names, 3, Lower, func(_ string, d int) bool { return d <= 2 })
	if !slices.Equal(got, []string{"read_file"}) {
		t.Errorf("Closest = %q", got)
	}
	if got := Closest("zzz", names, 3, nil, func(_ string, d int) bool { return d <= 1 }); len(got) != 0 {
		t.Errorf("Closest of a far name = %q", got)
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("kitten", "sitting")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 200 || len(b) > 200 {
			return
		}
		d := Distance(a, b)
		if d != Distance(b, a) || d > max(len(a), len(b)) || d < max(len(a), len(b))-min(len(a), len(b)) || (d == 0) != (a == b) {
			t.Fatalf("Distance(%q, %q) = %d breaks a metric's rules", a, b, d)
		}
	})
}
