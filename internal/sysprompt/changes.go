package sysprompt

import (
	"fmt"
	"slices"
	"strings"
)

// Changes is the note that tells the model how the repository differs
// now from r, the snapshot it was last shown: for a resumed session,
// whose system prompt keeps the snapshot of its first run so that it
// stays the same, byte for byte. It is "" when nothing differs. Only what
// now was able to read is compared: a git that did not answer this time
// says nothing about status and commits.
func (r *Repo) Changes(now *Repo) string {
	if r == nil || now == nil {
		return ""
	}
	var b strings.Builder
	if now.Branch != r.Branch && now.Branch != "" {
		b.WriteString("- Branch now: " + now.Branch + "\n")
	}
	if now.Git {
		if !r.Git || now.StatusMore != r.StatusMore || !slices.Equal(now.Status, r.Status) {
			writeStatusNow(&b, r, now)
		}
		if !slices.Equal(now.Commits, r.Commits) && len(now.Commits) > 0 {
			b.WriteString("- Recent commits now:\n")
			for _, c := range now.Commits {
				b.WriteString("  " + c + "\n")
			}
		}
	}
	if now.ListMore != r.ListMore || !slices.Equal(now.Listing, r.Listing) {
		b.WriteString("- Top level now: " + strings.Join(now.Listing, " "))
		if now.ListMore > 0 {
			fmt.Fprintf(&b, " (and %d more)", now.ListMore)
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return ""
	}
	return "<system-reminder>This session was resumed; the repository differs from the state you were last shown:\n" +
		b.String() + "</system-reminder>"
}

// writeStatusNow writes now's git status, with how many paths changed
// state since r.
func writeStatusNow(b *strings.Builder, r, now *Repo) {
	n := changedPaths(r.Status, now.Status)
	files := "files"
	if n == 1 {
		files = "file"
	}
	if len(now.Status) == 0 {
		fmt.Fprintf(b, "- git status now: clean (%d %s changed state)\n", n, files)
		return
	}
	fmt.Fprintf(b, "- git status --short now (%d %s changed state):\n", n, files)
	for _, l := range now.Status {
		b.WriteString("  " + l + "\n")
	}
	if now.StatusMore > 0 {
		fmt.Fprintf(b, "  (%d more)\n", now.StatusMore)
	}
}

// changedPaths counts the paths whose `git status --short` line is in
// one list and not the other.
func changedPaths(before, after []string) int {
	state := func(lines []string) map[string]string {
		m := make(map[string]string, len(lines))
		for _, l := range lines {
			path := l
			if len(l) > 3 {
				path = l[3:]
			}
			m[path] = l
		}
		return m
	}
	b, a := state(before), state(after)
	n := 0
	for p, l := range a {
		if b[p] != l {
			n++
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			n++
		}
	}
	return n
}
