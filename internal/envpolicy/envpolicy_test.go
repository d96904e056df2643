package envpolicy

import (
	"slices"
	"strings"
	"testing"
)

var sample = []string{
	"PATH=/usr/bin:/bin", "HOME=/home/u", "TERM=xterm", "LANG=C.UTF-8",
	"OPENAI_API_KEY=sk-test-1234567890", "GITHUB_TOKEN=ghp_abcdefghijkl", "AWS_SECRET_ACCESS_KEY=abcd/efgh+ijkl",
	"PGPASSWORD=hunter2hunter2", "DB_Password=pw", "GOOGLE_APPLICATION_CREDENTIALS=/home/u/c.json",
	"my_api_key=lower", "KEYTIMEOUT=1", "TOKENIZERS_PARALLELISM=false",
	"CORP_LLM=custom-credential-value", "EDITOR=vi",
}

func names(env []string) []string {
	var out []string
	for _, e := range env {
		n, _, _ := strings.Cut(e, "=")
		out = append(out, n)
	}
	return out
}

func TestDefaultWithholdsSecretNames(t *testing.T) {
	got := names(Default().Environ(sample))
	want := []string{"PATH", "HOME", "TERM", "LANG", "KEYTIMEOUT", "TOKENIZERS_PARALLELISM", "CORP_LLM", "EDITOR"}
	if !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
}

func TestCredentialsAreWithheldWhateverTheirName(t *testing.T) {
	p, err := New(Config{Credentials: []string{"CORP_LLM"}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names(p.Environ(sample)), "CORP_LLM") {
		t.Fatal("CORP_LLM, a variable ply read a credential from, reached the child")
	}
}

func TestIncludeExcludeSet(t *testing.T) {
	p, err := New(Config{
		Include:     []string{"GITHUB_TOKEN", "*_key", "*KEY*", "CORP_*"},
		Exclude:     []string{"EDITOR", "AWS_*"},
		Set:         map[string]string{"PATH": "/opt/bin", "NEW": "v"},
		Credentials: []string{"OPENAI_API_KEY", "CORP_LLM"},
	})
	if err != nil {
		t.Fatal(err)
	}
	env := p.Environ(sample)
	got := names(env)
	for _, n := range []string{"GITHUB_TOKEN", "my_api_key", "PATH", "NEW"} {
		if !slices.Contains(got, n) {
			t.Errorf("%s missing from %v", n, got)
		}
	}
	// A glob never lets through a credential ply read; exclude beats include.
	for _, n := range []string{"OPENAI_API_KEY", "CORP_LLM", "EDITOR", "AWS_SECRET_ACCESS_KEY", "PGPASSWORD"} {
		if slices.Contains(got, n) {
			t.Errorf("%s reached the child: %v", n, got)
		}
	}
	if !slices.Contains(env, "PATH=/opt/bin") || slices.Contains(env, "PATH=/usr/bin:/bin") {
		t.Errorf("set did not replace PATH: %v", env)
	}
	// Naming a credential exactly does let it through.
	p, _ = New(Config{Include: []string{"OPENAI_API_KEY"}, Credentials: []string{"OPENAI_API_KEY"}})
	if !slices.Contains(p.Environ(sample), "OPENAI_API_KEY=sk-test-1234567890") {
		t.Error("an exactly named include did not pass the credential")
	}
}

func TestNewRejectsBadPatterns(t *testing.T) {
	for _, c := range []Config{
		{Include: []string{"[a"}}, {Exclude: []string{""}}, {Set: map[string]string{"A=B": "x"}},
	} {
		if _, err := New(c); err == nil {
			t.Errorf("New(%+v) accepted it", c)
		}
	}
}

func TestSecretValues(t *testing.T) {
	p, _ := New(Config{Credentials: []string{"CORP_LLM"}, Set: map[string]string{"X_TOKEN": "set-secret-value"}, Include: []string{"GITHUB_TOKEN"}})
	got := p.SecretValues(sample, 8)
	for _, v := range []string{"sk-test-1234567890", "ghp_abcdefghijkl", "hunter2hunter2", "custom-credential-value", "set-secret-value", "/home/u/c.json"} {
		if !slices.Contains(got, v) {
			t.Errorf("%q not among the secret values %q", v, got)
		}
	}
	for _, v := range []string{"pw", "lower", "/usr/bin:/bin", "xterm"} {
		if slices.Contains(got, v) {
			t.Errorf("%q should not be redacted", v)
		}
	}
}

func FuzzPolicy(f *testing.F) {
	for _, s := range []string{"OPENAI_API_KEY=x", "PATH=/bin", "=x", "weird", "A=B=C", "token=", "KEYTIMEOUT=1"} {
		f.Add(s, "*KEY*", "PATH")
	}
	f.Fuzz(func(t *testing.T, entry, include, exclude string) {
		p, err := New(Config{Include: []string{include}, Exclude: []string{exclude}})
		if err != nil {
			return
		}
		for _, e := range p.Environ([]string{entry}) {
			name, _, ok := strings.Cut(e, "=")
			if !ok {
				t.Fatalf("%q has no '='", e)
			}
			if SecretName(name) && !slices.Contains([]string{include}, name) {
				if m, _ := matchGlob(include, name); !m {
					t.Fatalf("%q passed with include %q", e, include)
				}
			}
			if m, _ := matchGlob(exclude, name); m {
				t.Fatalf("%q passed although excluded by %q", e, exclude)
			}
		}
		if d := Default().Environ([]string{entry}); len(d) == 1 {
			name, _, _ := strings.Cut(d[0], "=")
			if SecretName(name) {
				t.Fatalf("default passed %q", d[0])
			}
		}
	})
}

func matchGlob(g, name string) (bool, error) { return matchAny([]string{g}, name), nil }

// CDPATH only changes where cd goes, and makes "cd src" leave the
// workspace: children never get it, whatever the settings say.
func TestCDPATHNeverReachesChildren(t *testing.T) {
	env := append(slices.Clone(sample), "CDPATH=/etc:/home")
	if slices.Contains(names(Default().Environ(env)), "CDPATH") {
		t.Error("the default policy passes CDPATH on")
	}
	p, err := New(Config{Include: []string{"CDPATH", "*"}, Set: map[string]string{"CDPATH": "/etc"}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names(p.Environ(env)), "CDPATH") {
		t.Error("Include or Set pass CDPATH on")
	}
	if p.Allowed("CDPATH") || Default().Allowed("CDPATH") {
		t.Error("Allowed(CDPATH) = true")
	}
}
