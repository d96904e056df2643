package session

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// typeTitle records the name the user gave the session (/rename); the
// last one holds.
const typeTitle = "title"

// titlePrefix starts every title line, as appendRecord writes it.
const titlePrefix = `{"type":"` + typeTitle + `"`

// MaxTitle bounds a session's name, in characters.
const MaxTitle = 80

// CheckTitle reports why title cannot name a session: empty, more than
// one line, or longer than MaxTitle characters.
func CheckTitle(title string) error {
	switch {
	case strings.TrimSpace(title) == "":
		return errors.New("a session's name cannot be empty")
	case strings.ContainsAny(title, "\n\r"):
		return errors.New("a session's name is one line")
	case utf8.RuneCountInString(title) > MaxTitle:
		return fmt.Errorf("a session's name has at most %d characters", MaxTitle)
	}
	return nil
}

// AppendTitle names the session title (see CheckTitle); the last name
// recorded holds.
func (w *Writer) AppendTitle(title string) {
	w.appendRecord("title", struct {
		Type  string    `json:"type"`
		Time  time.Time `json:"time"`
		Title string    `json:"title"`
	}{typeTitle, time.Now().UTC(), strings.TrimSpace(title)})
}
