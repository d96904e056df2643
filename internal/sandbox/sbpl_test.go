package sandbox

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden profiles in testdata/seatbelt")

// fakeMac resolves paths as macOS does for its top-level links (/tmp,
// /var and /etc live in /private) and reports directories under
// /missing as absent.
func fakeMac(p string) (string, error) {
	if strings.HasPrefix(p, "/missing") {
		return "", os.ErrNotExist
	}
	for _, l := range []string{"/tmp", "/var", "/etc"} {
		if p == l || strings.HasPrefix(p, l+"/") {
			return "/private" + p, nil
		}
	}
	return p, nil
}

// TestSeatbeltGolden compares the profiles of the read-only policy and of
// --sandbox's policy, with and without network, with the reviewed ones in
// testdata/seatbelt (go test -run Golden -update rewrites them).
func TestSeatbeltGolden(t *testing.T) {
	t.Setenv("HOME", "/Users/me")
	t.Setenv("XDG_CONFIG_HOME", "")
	ro := ReadOnlyPolicy("/var/folders/xy/T/ply-ro-1")
	ro.ReadableDirs = []string{"/Users/me/proj"}
	for name, p := range map[string]Policy{
		"readonly": ro,
		"sandbox":  {WritableDirs: []string{"/Users/me/proj", "/tmp/ply-2", "/Users/me/cache"}, ScopeSignals: true},
		"network":  {WritableDirs: []string{"/Users/me/proj"}, AllowNetwork: true, ScopeSignals: true},
	} {
		argv, err := seatbeltArgv(p, "/bin/bash", []string{"bash", "-c", "echo hi"}, fakeMac)
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf(";; argv: %q\n%s", slices.Concat(argv[:2], []string{"PROFILE"}, argv[3:]), argv[2])
		path := filepath.Join("testdata", "seatbelt", name+".sb")
		if *updateGolden {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: the profile changed; review it and rerun with -update:\n%s", name, got)
		}
		if err := checkSBPL(argv[2]); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestSeatbeltProfileParts checks what each part of a policy adds.
func TestSeatbeltProfileParts(t *testing.T) {
	profile := func(s seatbeltSpec) string {
		p, _, err := seatbeltProfile(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ro := profile(seatbeltSpec{WriteDirs: []string{"/private/tmp/x"}, ScopeSignals: true, ReadOnly: true})
	for _, want := range []string{"(deny default)", "(allow signal (target same-sandbox))", "(allow file-read*)\n", `(subpath (param "WRITE_0"))`, `(literal "/dev/null")`} {
		if !strings.Contains(ro, want) {
			t.Errorf("the read-only profile lacks %s:\n%s", want, ro)
		}
	}
	for _, no := range []string{"network", "system-socket", "pseudo-tty", "/dev/tty", "ipc-posix-shm", "(allow signal)", "dnssd"} {
		if strings.Contains(ro, no) {
			t.Errorf("the read-only profile allows %s:\n%s", no, ro)
		}
	}
	rw := profile(seatbeltSpec{WriteDirs: []string{"/w"}})
	if !strings.Contains(rw, "(allow pseudo-tty)") || !strings.Contains(rw, "(allow signal)\n") || strings.Contains(rw, "network") {
		t.Errorf("--sandbox's profile:\n%s", rw)
	}
	net := profile(seatbeltSpec{Network: true})
	if !strings.Contains(net, "(allow network-outbound)") || !strings.Contains(net, `"com.apple.dnssd.service"`) {
		t.Errorf("the profile with network:\n%s", net)
	}
	limited := profile(seatbeltSpec{ReadDirs: []string{"/Users/me/proj"}})
	if strings.Contains(limited, "(allow file-read*)\n") || !strings.Contains(limited, `(subpath (param "READ_0"))`) || !strings.Contains(limited, `(subpath "/usr")`) {
		t.Errorf("the profile with limited reads:\n%s", limited)
	}
	for _, s := range []string{ro, rw, net, limited} {
		if err := checkSBPL(s); err != nil {
			t.Errorf("%v:\n%s", err, s)
		}
	}
}

// TestSeatbeltPathsCannotChangeTheProfile gives directories whose names
// hold SBPL syntax: the profile is the same as for plain names, and the
// names reach sandbox-exec unchanged as parameters.
func TestSeatbeltPathsCannotChangeTheProfile(t *testing.T) {
	evil := []string{
		`/Users/me/a"b`, `/Users/me/back\slash\`, "/Users/me/new\nline",
		`/Users/me/x")) (allow default) (allow file-write* (subpath "/`, "/Users/me/#\"(regex",
	}
	plain := []string{"/a", "/b", "/c", "/d", "/e"}
	want, _, err := seatbeltProfile(seatbeltSpec{WriteDirs: plain, ReadDirs: plain})
	if err != nil {
		t.Fatal(err)
	}
	got, params, err := seatbeltProfile(seatbeltSpec{WriteDirs: evil, ReadDirs: evil})
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("directory names changed the profile:\n%s", got)
	}
	for i, d := range evil {
		if !slices.Contains(params, fmt.Sprintf("WRITE_%d=%s", i, d)) || !slices.Contains(params, fmt.Sprintf("READ_%d=%s", i, d)) {
			t.Errorf("%q is not passed unchanged: %q", d, params)
		}
	}
	if _, _, err := seatbeltProfile(seatbeltSpec{WriteDirs: []string{"relative"}}); err == nil {
		t.Error("a relative directory was accepted")
	}
}

func TestCanonicalDirs(t *testing.T) {
	got, err := canonicalDirs([]string{"/tmp/x", "/private/tmp/x", "/missing/y", "/Users/me/", "/var/folders/T"}, fakeMac)
	want := []string{"/private/tmp/x", "/Users/me", "/private/var/folders/T"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("canonicalDirs = %q, %v; want %q", got, err, want)
	}
	if _, err := canonicalDirs([]string{"rel"}, fakeMac); err == nil {
		t.Error("a relative directory was accepted")
	}
	bad := func(string) (string, error) { return "rel", nil }
	if _, err := canonicalDirs([]string{"/x"}, bad); err == nil {
		t.Error("a directory resolving to a relative path was accepted")
	}
}

func TestSeatbeltArgv(t *testing.T) {
	argv, err := seatbeltArgv(Policy{WritableDirs: []string{"/tmp/w"}}, "/bin/bash", []string{"bash", "-c", "ls -- -x"}, fakeMac)
	if err != nil {
		t.Fatal(err)
	}
	if argv[0] != seatbeltExec || argv[1] != "-p" {
		t.Fatalf("argv %q", argv)
	}
	if rest := argv[3:]; !slices.Equal(rest, []string{"-D", "WRITE_0=/private/tmp/w", "--", "/bin/bash", "-c", "ls -- -x"}) {
		t.Errorf("argv after the profile %q", rest)
	}
	if _, err := seatbeltArgv(Policy{}, "bash", []string{"bash"}, fakeMac); err == nil {
		t.Error("a relative program was accepted")
	}
}

func FuzzSeatbeltProfile(f *testing.F) {
	f.Add("/Users/me/proj", "/tmp/x\")(allow default)", true, false)
	f.Add("/a\\", "/b\nc", false, true)
	f.Fuzz(func(t *testing.T, d1, d2 string, network, readOnly bool) {
		dirs := []string{d1, d2}
		s := seatbeltSpec{WriteDirs: dirs, ReadDirs: dirs, Network: network, ReadOnly: readOnly}
		got, params, err := seatbeltProfile(s)
		if err != nil {
			return
		}
		s.WriteDirs, s.ReadDirs = []string{"/a", "/b"}, []string{"/a", "/b"}
		want, _, _ := seatbeltProfile(s)
		if got != want {
			t.Fatalf("directories %q changed the profile", dirs)
		}
		if len(params) != 4 || params[0] != "READ_0="+d1 || params[3] != "WRITE_1="+d2 {
			t.Fatalf("params %q for %q", params, dirs)
		}
		if err := checkSBPL(got); err != nil {
			t.Fatal(err)
		}
	})
}

// sbplOps are the operations ply's profiles may name.
var sbplOps = []string{
	"process-exec", "process-fork", "process-info*", "signal", "sysctl-read", "user-preference-read",
	"file-read-metadata", "file-read*", "file-write*", "file-write-data", "file-ioctl", "ipc-posix-sem",
	"ipc-posix-shm", "pseudo-tty", "mach-lookup", "network-outbound", "network-inbound", "network-bind",
	"system-socket",
}

// checkSBPL checks a profile's syntax as far as ply writes it: balanced
// parentheses, closed strings, (version 1) and (deny default) first, and
// every other form an allow of known operations.
func checkSBPL(profile string) error {
	forms, err := sbplForms(profile)
	if err != nil {
		return err
	}
	if len(forms) < 2 || forms[0] != "(version 1)" || forms[1] != "(deny default)" {
		return errors.New("the profile does not start with (version 1) (deny default)")
	}
	for _, f := range forms[2:] {
		words := strings.Fields(strings.Trim(f, "()"))
		if len(words) < 2 || words[0] != "allow" {
			return fmt.Errorf("unexpected form %s", f)
		}
		for _, w := range words[1:] {
			if strings.HasPrefix(w, "(") {
				break
			}
			if !slices.Contains(sbplOps, w) {
				return fmt.Errorf("unknown operation %q in %s", w, f)
			}
		}
	}
	return nil
}

// sbplForms splits a profile into its top-level forms.
func sbplForms(s string) ([]string, error) {
	var forms []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return nil, errors.New("an unclosed string")
			}
			i = j
		case c == '(':
			if depth == 0 {
				start = i
			}
			depth++
		case c == ')':
			if depth--; depth < 0 {
				return nil, errors.New("a ')' without '('")
			}
			if depth == 0 {
				forms = append(forms, s[start:i+1])
			}
		case depth == 0 && c != ' ' && c != '\n':
			return nil, fmt.Errorf("text outside a form at %d", i)
		}
	}
	if depth != 0 {
		return nil, errors.New("unbalanced parentheses")
	}
	return forms, nil
}
