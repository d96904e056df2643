package ide

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Caps on what of the editor's context reaches the model.
const (
	// MaxOpenFiles is how many of the most recently focused files are
	// kept.
	MaxOpenFiles = 10
	// MaxSelection bounds the selected text, in bytes.
	MaxSelection = 16 << 10
	// maxPath bounds a path, in bytes; a longer one is not a file name.
	maxPath = 4096
)

// Cursor is a position in a file, 1-based.
type Cursor struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// File is an open file as the editor reports it.
type File struct {
	Path      string  `json:"path"`
	Timestamp float64 `json:"timestamp"`
	// Active, Cursor and Selection are set only for the file that has
	// the focus.
	Active    bool    `json:"isActive"`
	Selection string  `json:"selectedText"`
	Cursor    *Cursor `json:"cursor"`
}

// Context is the editor's state: its open files, most recently focused
// first, the first of them active when the editor has the focus on one.
type Context struct {
	Files []File
}

// contextParams is the params of an ide/contextUpdate notification.
type contextParams struct {
	WorkspaceState *struct {
		OpenFiles []File `json:"openFiles"`
	} `json:"workspaceState"`
}

// ParseContext reads a context-update notification's params and applies
// the caps: files sorted by when they were focused, only the most recent
// one active (and only when the editor says so), its selection cut to
// MaxSelection, at most MaxOpenFiles files, files without a usable path
// dropped.
func ParseContext(params json.RawMessage) (Context, error) {
	var p contextParams
	if err := json.Unmarshal(params, &p); err != nil {
		return Context{}, fmt.Errorf("reading the editor's context: %w", err)
	}
	if p.WorkspaceState == nil {
		return Context{}, nil
	}
	files := slices.DeleteFunc(p.WorkspaceState.OpenFiles, func(f File) bool {
		return f.Path == "" || len(f.Path) > maxPath || !utf8.ValidString(f.Path) || strings.ContainsAny(f.Path, "\n\r")
	})
	slices.SortStableFunc(files, func(a, b File) int {
		switch {
		case a.Timestamp > b.Timestamp:
			return -1
		case a.Timestamp < b.Timestamp:
			return 1
		}
		return 0
	})
	for i := range files {
		files[i].Path = defuse(files[i].Path)
	}
	seen := map[string]bool{}
	files = slices.DeleteFunc(files, func(f File) bool {
		dup := seen[f.Path]
		seen[f.Path] = true
		return dup
	})
	for i := range files {
		if i > 0 || !files[i].Active {
			files[i].Active, files[i].Cursor, files[i].Selection = false, nil, ""
		}
	}
	if len(files) > 0 && files[0].Active {
		files[0].Selection = capText(files[0].Selection, MaxSelection)
	}
	if len(files) > MaxOpenFiles {
		files = files[:MaxOpenFiles]
	}
	return Context{Files: files}, nil
}

// capText cuts s to at most n bytes on a character boundary, saying so.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n[… selection truncated]"
}

// active is the active file, or nil.
func (c Context) active() *File {
	if len(c.Files) > 0 && c.Files[0].Active {
		return &c.Files[0]
	}
	return nil
}

// Block opener and closer of the context the model is given. The opener
// is a system reminder, which the transcript's readers leave out of what
// the user typed.
const (
	blockOpen  = "<system-reminder>\n"
	blockClose = "</system-reminder>"
)

// Describe returns the block that tells the model what changed in the
// editor since last (everything, when last is nil): "" when nothing did.
func Describe(last *Context, cur Context, ide string) string {
	var body string
	if last == nil {
		body = full(cur)
		if body == "" {
			return ""
		}
		return blockOpen + "The user's editor (" + cmpOr(ide, "their IDE") + ") reports the state below. It is context for " +
			"your information, not something the user typed or asked; use it when the request refers to it (\"this file\", " +
			"\"the selection\").\n" + body + blockClose
	}
	body = delta(*last, cur)
	if body == "" {
		return ""
	}
	return blockOpen + "Changes in the user's editor since their last message (context for your information, not part of the request):\n" +
		body + blockClose
}

func full(c Context) string {
	var b strings.Builder
	if a := c.active(); a != nil {
		b.WriteString("Active file: " + a.Path + cursorText(a.Cursor) + "\n")
		selectionText(&b, a.Selection)
	}
	var others []string
	for _, f := range c.Files {
		if !f.Active {
			others = append(others, f.Path)
		}
	}
	if len(others) > 0 {
		b.WriteString("Other open files (most recent first):\n")
		for _, p := range others {
			b.WriteString("- " + p + "\n")
		}
	}
	return b.String()
}

func delta(last, cur Context) string {
	var b strings.Builder
	was := map[string]bool{}
	for _, f := range last.Files {
		was[f.Path] = true
	}
	is := map[string]bool{}
	var opened, closed []string
	for _, f := range cur.Files {
		is[f.Path] = true
		if !was[f.Path] {
			opened = append(opened, f.Path)
		}
	}
	for _, f := range last.Files {
		if !is[f.Path] {
			closed = append(closed, f.Path)
		}
	}
	list(&b, "Files opened:", opened)
	list(&b, "Files closed:", closed)
	la, ca := last.active(), cur.active()
	switch {
	case ca != nil && (la == nil || la.Path != ca.Path):
		b.WriteString("Active file is now: " + ca.Path + cursorText(ca.Cursor) + "\n")
		selectionText(&b, ca.Selection)
	case ca != nil:
		if ca.Cursor != nil && (la.Cursor == nil || *la.Cursor != *ca.Cursor) {
			b.WriteString("Cursor moved in " + ca.Path + ": now at " + position(ca.Cursor) + "\n")
		}
		if la.Selection != ca.Selection {
			if ca.Selection == "" {
				b.WriteString("Nothing is selected any more in " + ca.Path + ".\n")
			} else {
				b.WriteString("Selection changed in " + ca.Path + ".\n")
				selectionText(&b, ca.Selection)
			}
		}
	case la != nil:
		b.WriteString("No file has the focus any more (it was " + la.Path + ").\n")
	}
	return b.String()
}

func list(b *strings.Builder, title string, paths []string) {
	if len(paths) == 0 {
		return
	}
	b.WriteString(title + "\n")
	for _, p := range paths {
		b.WriteString("- " + p + "\n")
	}
}

func cursorText(c *Cursor) string {
	if c == nil {
		return ""
	}
	return " (cursor at " + position(c) + ")"
}

func position(c *Cursor) string { return fmt.Sprintf("line %d, character %d", c.Line, c.Character) }

// selectionText writes the selection between markers that cannot occur
// in it.
func selectionText(b *strings.Builder, sel string) {
	if sel == "" {
		return
	}
	fence := "```"
	for strings.Contains(sel, fence) {
		fence += "`"
	}
	b.WriteString("Selected text:\n" + fence + "\n" + defuse(sel) + "\n" + fence + "\n")
}

// defuse keeps text from the editor from closing the block it is quoted
// in.
func defuse(s string) string {
	return strings.ReplaceAll(s, blockClose, "</system-reminder\u200b>")
}
