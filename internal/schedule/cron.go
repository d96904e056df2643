package schedule

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Cron is a parsed five-field cron expression, "minute hour day-of-month
// month day-of-week", in local time. Each field is *, a number, a range
// a-b, a step */n or a-b/n, or a comma list of those; day-of-week runs
// 0-7 with both 0 and 7 Sunday. When both day fields are restricted, a
// day matching either fires (as cron does).
type Cron struct {
	expr                     string
	minute, hour, dom, month [61]bool
	dow                      [8]bool
	domAny, dowAny           bool
}

// horizon bounds the search for the next firing: a leap day can be eight
// years away (2096 to 2104).
const horizon = 9

// ParseCron parses expr. An expression that can never fire (February 31)
// is an error too.
func ParseCron(expr string) (*Cron, error) {
	f := strings.Fields(expr)
	if len(f) != 5 {
		return nil, fmt.Errorf("cron %q: want 5 fields (minute hour day-of-month month day-of-week), got %d", expr, len(f))
	}
	c := &Cron{expr: strings.Join(f, " ")}
	var dow [61]bool
	for i, spec := range []struct {
		name     string
		lo, hi   int
		set      *[61]bool
		wildcard *bool
	}{
		{"minute", 0, 59, &c.minute, nil},
		{"hour", 0, 23, &c.hour, nil},
		{"day of month", 1, 31, &c.dom, &c.domAny},
		{"month", 1, 12, &c.month, nil},
		{"day of week", 0, 7, &dow, &c.dowAny},
	} {
		if err := parseField(f[i], spec.lo, spec.hi, spec.set); err != nil {
			return nil, fmt.Errorf("cron %q: %s: %w", expr, spec.name, err)
		}
		if spec.wildcard != nil {
			*spec.wildcard = f[i] == "*" || f[i] == "*/1"
		}
	}
	copy(c.dow[:], dow[:8])
	if c.dow[7] {
		c.dow[0] = true
	}
	if c.Next(time.Now()).IsZero() {
		return nil, fmt.Errorf("cron %q never fires", expr)
	}
	return c, nil
}

// parseField sets the values s names in set.
func parseField(s string, lo, hi int, set *[61]bool) error {
	for _, item := range strings.Split(s, ",") {
		rng, step := item, 1
		if i := strings.IndexByte(item, '/'); i >= 0 {
			n, err := strconv.Atoi(item[i+1:])
			if err != nil || n < 1 {
				return fmt.Errorf("bad step in %q", item)
			}
			rng, step = item[:i], n
		}
		a, b := lo, hi
		switch {
		case rng == "*":
		case strings.Contains(rng, "-"):
			x, y, _ := strings.Cut(rng, "-")
			var err1, err2 error
			a, err1 = strconv.Atoi(x)
			b, err2 = strconv.Atoi(y)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("bad range %q", item)
			}
		default:
			n, err := strconv.Atoi(rng)
			if err != nil {
				return fmt.Errorf("bad value %q", item)
			}
			a = n
			if step == 1 {
				b = n
			}
		}
		if a < lo || b > hi || a > b {
			return fmt.Errorf("%q is outside %d-%d", item, lo, hi)
		}
		for v := a; v <= b; v += step {
			set[v] = true
		}
	}
	return nil
}

// String is the expression as parsed.
func (c *Cron) String() string { return c.expr }

// Next returns the first minute strictly after from that the expression
// matches, in from's location; zero when none comes within nine years.
func (c *Cron) Next(from time.Time) time.Time {
	loc := from.Location()
	t := from.Truncate(time.Minute).Add(time.Minute)
	limit := from.AddDate(horizon, 0, 0)
	for t.Before(limit) {
		y, mo, d := t.Date()
		h := t.Hour()
		var next time.Time
		switch {
		case !c.month[mo]:
			next = time.Date(y, mo+1, 1, 0, 0, 0, 0, loc)
		case !c.dayOK(t):
			next = time.Date(y, mo, d+1, 0, 0, 0, 0, loc)
		case !c.hour[h]:
			next = time.Date(y, mo, d, h+1, 0, 0, 0, loc)
		case !c.minute[t.Minute()]:
			next = t.Add(time.Minute)
		default:
			return t
		}
		if !next.After(t) { // a daylight-saving change folded the clock back
			next = t.Add(time.Minute)
		}
		t = next
	}
	return time.Time{}
}

func (c *Cron) dayOK(t time.Time) bool {
	dom, dow := c.dom[t.Day()], c.dow[t.Weekday()]
	switch {
	case c.domAny && c.dowAny:
		return true
	case c.domAny:
		return dow
	case c.dowAny:
		return dom
	}
	return dom || dow
}

// matches reports whether t's minute is one the expression names.
func (c *Cron) matches(t time.Time) bool {
	return c.month[t.Month()] && c.dayOK(t) && c.hour[t.Hour()] && c.minute[t.Minute()]
}

// Bounds of a /loop interval.
const (
	MinInterval = time.Second
	MaxInterval = 7 * 24 * time.Hour
)

// ParseInterval parses a /loop interval: a Go duration ("90s", "5m",
// "1h30m") or a number of days ("1d"), from 1s to 7d.
func ParseInterval(s string) (time.Duration, error) {
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok && n != "" && !strings.ContainsAny(n, "hmsµun") {
		days, err := strconv.Atoi(n)
		if err != nil || days > 7 {
			return 0, fmt.Errorf("interval %q: days must be a whole number up to 7", s)
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, errors.New("interval " + strconv.Quote(s) + ": write it as 30s, 5m, 2h or 1d")
		}
	}
	if d < MinInterval || d > MaxInterval {
		return 0, fmt.Errorf("interval %q: it must be from 1s to 7d", s)
	}
	return d, nil
}
