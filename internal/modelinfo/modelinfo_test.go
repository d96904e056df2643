package modelinfo

import (
	"math"
	"testing"
)

func TestBuiltin(t *testing.T) {
	for _, tc := range []struct {
		model  string
		window int
		input  float64
	}{
		{"gpt-4o", 128_000, 2.50},
		{"gpt-4o-mini-2024-07-18", 128_000, 0.15},
		{"openai/gpt-4.1-mini", 1_047_576, 0.40},
		{"claude-sonnet-4-5-20250929", 200_000, 3},
		{"claude-sonnet-4.5", 200_000, 3},
		{"anthropic/claude-opus-4.5", 200_000, 5},
		{"claude-opus-4-1", 200_000, 15},
		{"gemini-2.5-flash-lite", 1_048_576, 0.10},
		{"GEMINI-2.5-PRO", 1_048_576, 1.25},
		{"qwen/qwen3-coder-plus", 1_000_000, 1},
		{"qwen3-coder:30b", 262_144, 0},
	} {
		got, ok := Builtin(tc.model)
		if !ok || got.ContextWindow != tc.window || got.Prices.Input != tc.input {
			t.Errorf("Builtin(%q) = %+v, %v; want window %d, input %v", tc.model, got, ok, tc.window, tc.input)
		}
	}
	for _, m := range []string{"test-model", "gpt-4olive", "", "my-llama"} {
		if got, ok := Builtin(m); ok {
			t.Errorf("Builtin(%q) = %+v; want unknown", m, got)
		}
	}
}

func TestCost(t *testing.T) {
	p := Prices{Input: 3, CachedInput: 0.30, Output: 15}
	// 1M input of which 400k cached, 100k output.
	got := p.Cost(1_000_000, 400_000, 100_000)
	want := 0.6*3 + 0.4*0.30 + 0.1*15
	if math.Abs(got-want) > 1e-9 {
		t.Fatalf("cost %v, want %v", got, want)
	}
	// Unknown cached price: cached input costs as input.
	if got := (Prices{Input: 2, Output: 8}).Cost(1_000_000, 500_000, 0); math.Abs(got-2) > 1e-9 {
		t.Fatalf("cost with no cached price %v, want 2", got)
	}
	// More cached than input (a provider's odd report) is capped.
	if got := p.Cost(10, 50, 0); got < 0 {
		t.Fatalf("negative cost %v", got)
	}
}

func TestResolve(t *testing.T) {
	info, known := Resolve("claude-sonnet-4-5", Info{ContextWindow: 1_000_000})
	if !known || info.ContextWindow != 1_000_000 || info.Prices.Output != 15 {
		t.Fatalf("window override: %+v %v", info, known)
	}
	info, known = Resolve("house-model", Info{Prices: Prices{Input: 1, Output: 2}})
	if known || info.Prices.Output != 2 {
		t.Fatalf("prices for an unknown model: %+v %v", info, known)
	}
	if _, known := Resolve("house-model", Info{}); known {
		t.Fatal("an unknown model's window is known")
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"gpt-4o", "openai/gpt-4o:free", "claude-sonnet-4.5@2025", "", "/", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if Normalize(n) != n {
			t.Fatalf("Normalize is not idempotent: %q -> %q -> %q", s, n, Normalize(n))
		}
		if info, ok := Builtin(s); ok && info.ContextWindow <= 0 {
			t.Fatalf("known model %q without a window", s)
		}
	})
}
