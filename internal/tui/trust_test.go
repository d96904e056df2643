package tui

import (
	"bytes"
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func trustQ() TrustQuestion {
	return TrustQuestion{Dir: "/src/proj", Parent: "/src", Ignored: ".ply/settings.json (approvalMode, hooks)", NoColor: true}
}

func TestTrustQuestionShowsWhatIsIgnored(t *testing.T) {
	m := newTrustModel(trustQ())
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	v := m.View().Content
	for _, want := range []string{"Do you trust this folder?", "/src/proj", ".ply/settings.json (approvalMode,", "1. Trust this folder", "2. Trust the parent folder (/src)", "3. Not now"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	for _, l := range strings.Split(v, "\n") {
		if n := len([]rune(l)); n > 60 {
			t.Errorf("line of %d columns in a 60-column terminal: %q", n, l)
		}
	}
}

func TestTrustQuestionKeys(t *testing.T) {
	cases := []struct {
		name string
		keys []tea.KeyPressMsg
		want TrustAnswer
	}{
		{"enter takes the first", []tea.KeyPressMsg{{Code: tea.KeyEnter}}, TrustFolder},
		{"down enter", []tea.KeyPressMsg{{Code: tea.KeyDown}, {Code: tea.KeyEnter}}, TrustParent},
		{"up wraps to not now", []tea.KeyPressMsg{{Code: tea.KeyUp}, {Code: tea.KeyEnter}}, TrustNotNow},
		{"digit 2", []tea.KeyPressMsg{{Code: '2', Text: "2"}}, TrustParent},
		{"digit 3", []tea.KeyPressMsg{{Code: '3', Text: "3"}}, TrustNotNow},
		{"esc", []tea.KeyPressMsg{{Code: tea.KeyEscape}}, TrustNotNow},
		{"ctrl+c", []tea.KeyPressMsg{{Code: 'c', Mod: tea.ModCtrl}}, TrustQuit},
		{"other keys do nothing", []tea.KeyPressMsg{{Code: 'y', Text: "y"}, {Code: '9', Text: "9"}, {Code: tea.KeyEnter}}, TrustFolder},
	}
	for _, c := range cases {
		m := newTrustModel(trustQ())
		var cmd tea.Cmd
		for _, k := range c.keys {
			_, cmd = m.Update(k)
		}
		if !m.done || m.answer != c.want || cmd == nil {
			t.Errorf("%s: done=%v answer=%v", c.name, m.done, m.answer)
		}
	}
}

// The question runs as its own small program before the session's.
func TestAskTrustRunsAProgram(t *testing.T) {
	var out bytes.Buffer
	ans, err := AskTrust(context.Background(), trustQ(), strings.NewReader("2"), &out)
	if err != nil || ans != TrustParent {
		t.Fatalf("answer %v err %v", ans, err)
	}
}

// The trust question's outcome is the session's first line under the
// title, where the user sees it (a line printed before the UI starts
// scrolls out of view).
func TestStartNoticeIsShown(t *testing.T) {
	cfg := Config{Model: "test-model", NoColor: true, Width: 80, Height: 24, Notice: "ply: this folder is not trusted: ignored x\x1b[2J"}
	m := newModel(cfg, &driver{cfg: cfg, send: func(tea.Msg) {}})
	m.keep = true
	m.Init()
	got := strings.Join(m.printed, "\n")
	if !strings.Contains(got, "test-model") || !strings.Contains(got, "ply: this folder is not trusted: ignored x") || strings.Contains(got, "\x1b[2J") {
		t.Fatalf("printed %q", got)
	}
}
