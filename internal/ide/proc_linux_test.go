package ide

import "testing"

func TestParseStat(t *testing.T) {
	ppid, name, err := parseStat([]byte("123 (my (odd) prog) S 45 123 123 0 -1"))
	if err != nil || ppid != 45 || name != "my (odd) prog" {
		t.Fatalf("parseStat = %d %q %v", ppid, name, err)
	}
	if _, _, err := parseStat([]byte("garbage")); err == nil {
		t.Fatal("parseStat accepted garbage")
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("1 (bash) S 0 1 1"))
	f.Add([]byte("1 ()) S x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, _ = parseStat(data)
	})
}
