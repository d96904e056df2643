package tui_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// TestTmuxFooterContext: after a request the provider measured at 27,000
// prompt tokens, the footer's context figure is within 10% of that, of
// an assumed window ("~") for a model ply does not know; yolo is red.
func TestTmuxFooterContext(t *testing.T) {
	t.Parallel()
	bin := buildPly(t)
	dir := t.TempDir()
	srv := fp.New(t, fp.Turn{fp.Text("short answer"), fp.Usage(27000, 20)})
	x := startPly(t, bin, dir, srv, 120, 30, nil, "--approval-mode", "yolo")
	x.waitFor("test-model · yolo mode")
	x.submit("hello")
	s := x.waitFor("27.0k in / 20 out")
	m := regexp.MustCompile(`ctx ([0-9.]+)(k?)/~128k`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no context figure against an assumed 128k window in the footer:\n%s", s)
	}
	f, _ := strconv.ParseFloat(m[1], 64)
	if m[2] == "k" {
		f *= 1000
	}
	if f < 27000*0.9 || f > 27000*1.1 {
		t.Errorf("context figure %v is not within 10%% of the reported 27000 prompt tokens:\n%s", f, s)
	}
	raw := x.run("capture-pane", "-p", "-e", "-t", "ply")
	red := regexp.MustCompile(`\x1b\[[0-9;]*(?:91|31|38;5;9)[0-9;]*m[^\x1b]*yolo mode`)
	if !red.MatchString(raw) {
		i := strings.LastIndex(raw, "yolo mode")
		t.Errorf("yolo mode is not red in the footer: %q", raw[max(i-60, 0):i+9])
	}
}
