package tui

import (
	"strings"
	"testing"
	"time"
)

func TestCutRows(t *testing.T) {
	lines := make([]string, 10)
	for i := range lines {
		lines[i] = strings.Repeat("x", 5)
	}
	s := strings.Join(lines, "\n")
	head, rest, cut := cutRows(s, 4, 80)
	if !cut || strings.Count(head, "\n") != 3 || head+"\n"+rest != s {
		t.Fatalf("cut %v head %q rest %q", cut, head, rest)
	}
	// A line three times as wide as the terminal takes three rows.
	wide := strings.Repeat("y", 30) + "\nz\nz"
	if head, _, cut := cutRows(wide, 3, 10); !cut || head != strings.Repeat("y", 30) {
		t.Fatalf("wide: cut %v head %q", cut, head)
	}
	if _, _, cut := cutRows("a\nb", 5, 80); cut {
		t.Fatal("a short block was cut")
	}
	// A first line taller than the room still goes out, alone.
	if head, _, cut := cutRows(strings.Repeat("w", 100)+"\nq", 2, 10); !cut || head != strings.Repeat("w", 100) {
		t.Fatalf("tall first line: cut %v head %q", cut, head)
	}
}

// A long block goes to the terminal in prints that fit above the live
// area, in order, and all of it.
func TestFlushInRoom(t *testing.T) {
	m := newModel(Config{Width: 80, Height: 10}, &driver{})
	m.frameLines = 3
	var b strings.Builder
	for i := range 50 {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat("l", i%7+1))
	}
	m.toPrint = []string{b.String()}
	var got []string
	for {
		s, ok := m.nextPrint()
		if !ok {
			break
		}
		if n := strings.Count(s, "\n") + 1; n > m.printRoom() {
			t.Fatalf("a print of %d lines; room %d", n, m.printRoom())
		}
		got = append(got, s)
		m.printing = false
	}
	if strings.Join(got, "\n") != b.String() {
		t.Fatal("the prints do not add up to the block")
	}
}

func FuzzCutRows(f *testing.F) {
	f.Add("a\nbb\nccc", 2, 2)
	f.Add("\x1b[31mred\x1b[0m\n\n漢字漢字", 1, 3)
	f.Fuzz(func(t *testing.T, s string, room, width int) {
		room, width = room%50, width%200
		head, rest, cut := cutRows(s, room, width)
		if !cut {
			if head != s {
				t.Fatal("uncut head differs")
			}
			return
		}
		if head+"\n"+rest != s {
			t.Fatalf("head %q + rest %q != %q", head, rest, s)
		}
	})
}

// The renderer inserts a print above the frame it drew last, which can
// be older than the last one View made (it draws on a timer): a frame
// that just shrank still takes its old height, and the print is sized
// for the taller of the two.
func TestPrintRoomAllowsForAFrameNotYetDrawn(t *testing.T) {
	m := newModel(Config{Width: 80, Height: 30}, &driver{})
	now := time.Unix(1000, 0)
	m.cfg.Extra.Now = func() time.Time { return now }
	m.noteFrame(8)
	now = now.Add(100 * time.Millisecond)
	m.noteFrame(2)
	if got := m.printRoom(); got != 30-8-1 {
		t.Fatalf("room %d just after the frame shrank from 8 lines to 2, want %d", got, 30-8-1)
	}
	now = now.Add(2 * time.Second)
	m.noteFrame(2)
	if got := m.printRoom(); got != 30-2-1 {
		t.Fatalf("room %d once the shorter frame has long been drawn, want %d", got, 30-2-1)
	}
}
