package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// completion is the drop-down under the editor: the slash commands that
// match what is typed at the start of the editor, with their help lines,
// or the paths an @word at the cursor may name. Up and Down move the
// highlight, Tab accepts it, Enter accepts it (and runs a command), Esc
// closes the menu. Every other key edits the text as usual and the menu
// follows; the menu never takes a key that types.
type completion struct {
	menu *compMenu
	// shut is the editor's text when Esc closed the menu: it stays
	// closed until the text changes.
	shut string
}

// compMenu is an open menu, built for the editor text key.
type compMenu struct {
	items []compItem
	sel   int // the highlighted item
	top   int // the first item shown
	at    bool
	// word is the @word the path items complete (at only).
	word string
	key  string
}

// compItem is one choice: what it puts in the editor, and a line about it.
type compItem struct{ value, desc string }

// menuMaxRows bounds the menu's height; a longer list scrolls.
const menuMaxRows = 8

// refreshMenu builds the menu for the editor's text, the best match
// highlighted.
func (m *model) refreshMenu() {
	val := m.input.Value()
	if m.comp.shut != "" && val == m.comp.shut {
		m.comp.menu = nil
		return
	}
	m.comp.shut = ""
	mn := &compMenu{key: val}
	if strings.HasPrefix(val, "/") && !strings.ContainsAny(val, " \n") {
		mn.items = m.slashItems(val)
	} else if w := m.atWord(); strings.HasPrefix(w, "@") {
		mn.at, mn.word = true, w
		for _, p := range m.pathCandidates(w[1:]) {
			d := "file"
			if strings.HasSuffix(p, "/") {
				d = "folder"
			}
			mn.items = append(mn.items, compItem{value: p, desc: d})
		}
	}
	if len(mn.items) == 0 {
		m.comp.menu = nil
		return
	}
	m.comp.menu = mn
	m.scrollMenu()
}

// openMenu returns the menu when it was built for what the editor holds
// now; a menu left from other text is never shown nor used.
func (m *model) openMenu() *compMenu {
	if mn := m.comp.menu; mn != nil && mn.key == m.input.Value() {
		return mn
	}
	return nil
}

// closeMenu closes the menu until the editor's text changes.
func (m *model) closeMenu() {
	m.comp.menu, m.comp.shut = nil, m.input.Value()
}

// slashItems lists the commands matching p: those whose name starts
// with it (the exact name first), then, once two letters are typed,
// those whose name contains it.
func (m *model) slashItems(p string) []compItem {
	var all []compItem
	seen := map[string]bool{}
	add := func(name, desc string) {
		if !seen[name] {
			seen[name] = true
			all = append(all, compItem{value: name, desc: desc})
		}
	}
	for _, c := range commands {
		add(c.name, c.help)
	}
	for _, c := range m.cfg.Extra.Custom {
		add("/"+c.Name, strings.TrimSpace(c.ArgumentHint+"  "+c.Description))
	}
	if sk, ok := probe[SkillRunner](m); ok {
		for _, s := range sk.SkillList() {
			add("/"+s.Name, s.Description)
		}
	}
	var exact, prefix, inside []compItem
	word := strings.ToLower(p)
	for _, it := range all {
		n := strings.ToLower(it.value)
		switch {
		case n == word:
			exact = append(exact, it)
		case strings.HasPrefix(n, word):
			prefix = append(prefix, it)
		case len(word) > 2 && strings.Contains(n[1:], word[1:]):
			inside = append(inside, it)
		}
	}
	if len(exact) == 0 && strings.HasPrefix("/exit", word) && len(word) > 1 {
		// /exit is /quit's other name.
		prefix = append(prefix, compItem{value: "/exit", desc: "leave ply"})
	}
	return slices.Concat(exact, prefix, inside)
}

// menuRows is how many items the menu shows at once: what the screen
// has left beside the editor, the footer and the position line.
func (m *model) menuRows() int {
	return max(min(menuMaxRows, m.height-6), 1)
}

// scrollMenu keeps the highlighted item in view.
func (m *model) scrollMenu() {
	mn := m.comp.menu
	rows := m.menuRows()
	if mn.sel < mn.top {
		mn.top = mn.sel
	}
	if mn.sel >= mn.top+rows {
		mn.top = mn.sel - rows + 1
	}
	mn.top = max(min(mn.top, len(mn.items)-rows), 0)
}

// menuKey handles a key while the menu is open. done says the key was
// the menu's; otherwise it goes on to the editor (Enter on a command
// runs the command it put there).
func (m *model) menuKey(s string) (done bool) {
	mn := m.openMenu()
	if mn == nil {
		return false
	}
	switch s {
	case "up", "ctrl+p":
		mn.sel = (mn.sel + len(mn.items) - 1) % len(mn.items)
	case "down", "ctrl+n":
		mn.sel = (mn.sel + 1) % len(mn.items)
	case "pgup":
		mn.sel = max(mn.sel-m.menuRows(), 0)
	case "pgdown":
		mn.sel = min(mn.sel+m.menuRows(), len(mn.items)-1)
	case "tab":
		m.acceptMenu(mn, true)
		return true
	case "enter":
		m.acceptMenu(mn, false)
		return mn.at // a path is put in; a command runs
	default:
		return false
	}
	m.scrollMenu()
	return true
}

// acceptMenu puts the highlighted item into the editor. A command gets a
// space after it when more may be typed (Tab); a folder keeps the menu
// open on what it holds.
func (m *model) acceptMenu(mn *compMenu, tab bool) {
	it := mn.items[mn.sel]
	m.hint = ""
	if !mn.at {
		v := it.value
		if tab {
			v += " "
		}
		m.input.SetValue(v)
		m.comp.menu = nil
		return
	}
	// The candidates start with what the word holds: the rest is added.
	if typed := mn.word[1:]; strings.HasPrefix(it.value, typed) {
		m.input.InsertString(it.value[len(typed):])
	}
	if !strings.HasSuffix(it.value, "/") {
		m.input.InsertString(" ")
	}
	m.refreshMenu()
}

// menuView draws the open menu: one item a line, its value then its
// help, the highlighted one marked; a line says where a long list is.
func (m *model) menuView() string {
	mn := m.openMenu()
	if mn == nil {
		return ""
	}
	rows := m.menuRows()
	end := min(mn.top+rows, len(mn.items))
	nameW := 0
	for _, it := range mn.items[mn.top:end] {
		nameW = max(nameW, ansi.StringWidth(sanitize(it.value)))
	}
	nameW = min(nameW, max(m.width/2, 12))
	lines := make([]string, 0, rows+1)
	for i := mn.top; i < end; i++ {
		it := mn.items[i]
		name := abbreviateKeep(sanitize(it.value), nameW)
		name += strings.Repeat(" ", nameW-ansi.StringWidth(name))
		desc := abbreviate(sanitize(it.desc), max(m.width-nameW-6, 0))
		if i == mn.sel {
			lines = append(lines, ansi.Truncate(m.st.user.Render("❯ "+name)+"  "+desc, m.width-1, "…"))
			continue
		}
		lines = append(lines, ansi.Truncate("  "+name+"  "+m.st.dim.Render(desc), m.width-1, "…"))
	}
	if len(mn.items) > rows && rows >= 3 {
		lines = append(lines, m.st.dim.Render(abbreviate(fmt.Sprintf("  %d of %d · ↑↓ more · Tab accept · Esc close", mn.sel+1, len(mn.items)), m.width-1)))
	}
	return strings.Join(lines, "\n")
}
