package schedule

import (
	"testing"
	"time"
)

func at(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, time.Local)
	if err != nil {
		panic(err)
	}
	return t
}

func TestCronNext(t *testing.T) {
	for _, tc := range []struct{ expr, from, want string }{
		{"*/5 * * * *", "2026-03-04 10:02", "2026-03-04 10:05"},
		{"*/5 * * * *", "2026-03-04 10:05", "2026-03-04 10:10"}, // strictly after
		{"0 9 * * *", "2026-03-04 10:00", "2026-03-05 09:00"},
		{"30 14 28 2 *", "2026-03-01 00:00", "2027-02-28 14:30"},
		{"0 0 * * 1", "2026-03-04 12:00", "2026-03-09 00:00"}, // next Monday
		{"0 0 * * 7", "2026-03-04 12:00", "2026-03-08 00:00"}, // 7 is Sunday
		{"15,45 8-9 * * *", "2026-03-04 08:20", "2026-03-04 08:45"},
		{"0 12 1 * 1-5", "2026-03-02 13:00", "2026-03-03 12:00"}, // day of month OR weekday
		{"0 0 29 2 *", "2026-01-01 00:00", "2028-02-29 00:00"},
		{"10-20/5 * * * *", "2026-03-04 10:16", "2026-03-04 10:20"},
	} {
		c, err := ParseCron(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if got := c.Next(at(tc.from)); !got.Equal(at(tc.want)) {
			t.Errorf("%s from %s: %s, want %s", tc.expr, tc.from, got.Format("2006-01-02 15:04"), tc.want)
		}
	}
}

func TestCronErrors(t *testing.T) {
	for _, expr := range []string{"", "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *",
		"* * * * 8", "*/0 * * * *", "5-1 * * * *", "a * * * *", "1,,2 * * * *", "-1 * * * *", "0 0 31 2 *"} {
		if _, err := ParseCron(expr); err == nil {
			t.Errorf("%q parsed", expr)
		}
	}
}

func FuzzParseCron(f *testing.F) {
	for _, s := range []string{"*/5 * * * *", "0 9 * * 1-5", "30 14 28 2 *", "0 0 29 2 *", "1,2,3-9/2 * * * 7", "* * * * *"} {
		f.Add(s)
	}
	from := at("2026-03-04 10:02")
	f.Fuzz(func(t *testing.T, expr string) {
		c, err := ParseCron(expr)
		if err != nil {
			return
		}
		next := c.Next(from)
		if next.IsZero() {
			t.Fatalf("%q parsed but never fires", expr)
		}
		if !next.After(from) || next.Second() != 0 || !c.matches(next) {
			t.Fatalf("%q: next %v", expr, next)
		}
	})
}

func TestParseInterval(t *testing.T) {
	for in, want := range map[string]time.Duration{"1s": time.Second, "5m": 5 * time.Minute, "2h": 2 * time.Hour, "1d": 24 * time.Hour, "90s": 90 * time.Second, "1h30m": 90 * time.Minute} {
		if got, err := ParseInterval(in); err != nil || got != want {
			t.Errorf("%s: %v %v", in, got, err)
		}
	}
	for _, in := range []string{"", "0s", "-1m", "500ms", "x", "8d"} {
		if _, err := ParseInterval(in); err == nil {
			t.Errorf("%q parsed", in)
		}
	}
}

func FuzzParseInterval(f *testing.F) {
	for _, s := range []string{"1s", "5m", "1d", "1h30m", "7d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseInterval(s)
		if err == nil && (d < MinInterval || d > MaxInterval) {
			t.Fatalf("%q: %v out of bounds", s, d)
		}
	})
}
