package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// unit says how a figure prints and which way is better.
type unit int

const (
	unitDuration unit = iota // float64 nanoseconds
	unitBytes                // float64 bytes
	unitMBps                 // float64 MB/s (10^6 bytes per second, as go test)
	unitRatio                // float64, dimensionless
	unitCount                // float64, printed as a plain number
)

// row is one line of the table: a figure measured several times.
type row struct {
	group  string
	name   string
	unit   unit
	values []float64
	// target is the goal for this figure, in the figure's unit;
	// NaN when there is none. higherBetter flips the comparison.
	target       float64
	higherBetter bool
	// inclusive makes the target a bound the median may reach (≤, ≥).
	inclusive bool
	note      string
}

// table collects rows and notes as the scenarios run.
type table struct {
	rows  []*row
	notes []string
}

func (t *table) add(r *row) *row {
	if r.target == 0 {
		r.target = math.NaN()
	}
	t.rows = append(t.rows, r)
	return r
}

func (t *table) notef(format string, args ...any) {
	t.notes = append(t.notes, fmt.Sprintf(format, args...))
}

// minMedMax returns the three figures the table prints. The median of an
// even count is the mean of the middle two.
func minMedMax(vs []float64) (lo, med, hi float64) {
	if len(vs) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return s[0], med, s[n-1]
}

func median(vs []float64) float64 {
	_, m, _ := minMedMax(vs)
	return m
}

func (u unit) format(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	switch u {
	case unitDuration:
		d := time.Duration(v)
		switch {
		case d >= 10*time.Second:
			return fmt.Sprintf("%.1f s", d.Seconds())
		case d >= time.Second:
			return fmt.Sprintf("%.2f s", d.Seconds())
		case d >= 10*time.Millisecond:
			return fmt.Sprintf("%.1f ms", float64(d)/1e6)
		case d >= time.Millisecond:
			return fmt.Sprintf("%.2f ms", float64(d)/1e6)
		case d >= 10*time.Microsecond:
			return fmt.Sprintf("%.0f µs", float64(d)/1e3)
		default:
			return fmt.Sprintf("%.2f µs", float64(d)/1e3)
		}
	case unitBytes:
		switch {
		case math.Abs(v) >= 1<<30:
			return fmt.Sprintf("%.2f GiB", v/(1<<30))
		case math.Abs(v) >= 1<<20:
			return fmt.Sprintf("%.1f MiB", v/(1<<20))
		case math.Abs(v) >= 1<<10:
			return fmt.Sprintf("%.0f KiB", v/(1<<10))
		default:
			return fmt.Sprintf("%.0f B", v)
		}
	case unitMBps:
		return fmt.Sprintf("%.0f MB/s", v)
	case unitRatio:
		// Three significant digits: a ratio just under its target
		// (0.298x against 0.30x) reads as under it.
		return strconv.FormatFloat(v, 'g', 3, 64) + "x"
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

// verdict compares the median with the target.
func (r *row) verdict() string {
	if math.IsNaN(r.target) || len(r.values) == 0 {
		return ""
	}
	m := median(r.values)
	ok := m < r.target || r.inclusive && m == r.target
	if r.higherBetter {
		ok = m > r.target || r.inclusive && m == r.target
	}
	if ok {
		return "met"
	}
	return "**missed**"
}

func (r *row) targetText() string {
	if math.IsNaN(r.target) {
		return ""
	}
	lt, gt := "< ", "> "
	if r.inclusive {
		lt, gt = "≤ ", "≥ "
	}
	if r.higherBetter {
		return gt + r.unit.format(r.target)
	}
	return lt + r.unit.format(r.target)
}

// cell escapes what would break a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// write prints the table as Markdown, grouped as the rows were added.
func (t *table) write(w io.Writer) {
	fmt.Fprintln(w, "| group | figure | n | min | median | max | target | |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|---|")
	for _, r := range t.rows {
		lo, med, hi := minMedMax(r.values)
		name := r.name
		if r.note != "" {
			name += " (" + r.note + ")"
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %s |\n",
			cell(r.group), cell(name), len(r.values),
			r.unit.format(lo), r.unit.format(med), r.unit.format(hi),
			r.targetText(), r.verdict())
	}
	if len(t.notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range t.notes {
			fmt.Fprintln(w, "- "+n)
		}
	}
}
