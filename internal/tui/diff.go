package tui

import (
	"fmt"
	"strings"
)

// maxDiffCells bounds the line-matching table: beyond it the changed
// middle is shown as all removed, then all added, which is still correct.
const maxDiffCells = 1 << 20

// lineDiff returns a unified-style diff of a and b, as lines starting with
// "-", "+" or " ", with context lines around each change and "@@" lines
// between hunks. Equal texts give nil.
func lineDiff(a, b string, context int) []string {
	if a == b {
		return nil
	}
	al, bl := splitLines(a), splitLines(b)
	// The common head and tail need no table.
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	ops := make([]string, 0, len(al)+len(bl))
	for _, l := range al[:pre] {
		ops = append(ops, " "+l)
	}
	ops = append(ops, middleDiff(al[pre:len(al)-suf], bl[pre:len(bl)-suf])...)
	for _, l := range al[len(al)-suf:] {
		ops = append(ops, " "+l)
	}
	return hunks(ops, context)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// middleDiff matches the changed middle by longest common subsequence.
func middleDiff(a, b []string) []string {
	var out []string
	if len(a)*len(b) > maxDiffCells || len(a) == 0 || len(b) == 0 {
		for _, l := range a {
			out = append(out, "-"+l)
		}
		for _, l := range b {
			out = append(out, "+"+l)
		}
		return out
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, " "+a[i])
			i, j = i+1, j+1
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			out = append(out, "-"+a[i])
			i++
		default:
			out = append(out, "+"+b[j])
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, "-"+a[i])
	}
	for ; j < len(b); j++ {
		out = append(out, "+"+b[j])
	}
	return out
}

// hunks keeps the changed lines and context lines around them, each run
// under a unified "@@ -old,n +new,n @@" header.
func hunks(ops []string, context int) []string {
	keep := make([]bool, len(ops))
	for i, op := range ops {
		if op[0] != ' ' {
			for k := max(0, i-context); k <= min(len(ops)-1, i+context); k++ {
				keep[k] = true
			}
		}
	}
	var out []string
	oldLine, newLine := 1, 1
	for i := 0; i < len(ops); {
		if !keep[i] {
			oldLine, newLine = oldLine+1, newLine+1 // a context line
			i++
			continue
		}
		j := i
		oc, nc := 0, 0
		for ; j < len(ops) && keep[j]; j++ {
			if ops[j][0] != '+' {
				oc++
			}
			if ops[j][0] != '-' {
				nc++
			}
		}
		out = append(out, fmt.Sprintf("@@ -%d,%d +%d,%d @@", oldLine, oc, newLine, nc))
		out = append(out, ops[i:j]...)
		oldLine, newLine, i = oldLine+oc, newLine+nc, j
	}
	return out
}
