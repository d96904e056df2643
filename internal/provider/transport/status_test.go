package transport

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/llm"
)

func TestStatusKind(t *testing.T) {
	tests := []struct {
		status              int
		overloaded, context bool
		want                llm.ErrorKind
		ok                  bool
	}{
		{0, true, true, llm.ErrUnknown, false},
		{429, false, false, llm.ErrRateLimit, true},
		{401, false, false, llm.ErrAuth, true},
		{403, false, false, llm.ErrAuth, true},
		{404, false, true, llm.ErrNotFound, true},
		{529, false, false, llm.ErrOverloaded, true},
		{503, true, false, llm.ErrOverloaded, true},
		{503, false, false, llm.ErrServer, true},
		{500, true, false, llm.ErrServer, true},
		{400, false, true, llm.ErrContextLength, true},
		{413, false, false, llm.ErrBadRequest, true},
		{302, false, false, llm.ErrUnknown, true},
	}
	for _, tt := range tests {
		got, ok := StatusKind(tt.status, tt.overloaded, tt.context)
		if got != tt.want || ok != tt.ok {
			t.Errorf("StatusKind(%d, %v, %v) = %v, %v; want %v, %v", tt.status, tt.overloaded, tt.context, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNotAPI(t *testing.T) {
	req := httptest.NewRequest("POST", "http://h/v1beta/models/m:streamGenerateContent?key=secret&alt=sse", nil)
	resp := func(status int, ctype string) *http.Response {
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ctype}}, Request: req}
	}
	e := NotAPI("gemini", "the Gemini API", resp(404, "text/html"), []byte("<html>no</html>"), false)
	if e == nil || e.Kind != llm.ErrNotAPI || strings.Contains(e.Message, "secret") ||
		e.Message != "http://h/v1beta/models/m:streamGenerateContent does not look like the Gemini API: it answered with an HTML page; check the base URL" {
		t.Fatalf("%+v", e)
	}
	if e := NotAPI("openai", "x", resp(501, "text/plain"), nil, false); e == nil || !strings.Contains(e.Message, "an empty reply") {
		t.Fatalf("empty 501: %+v", e)
	}
	for _, c := range []struct {
		status int
		json   bool
	}{{404, true}, {500, false}, {400, false}, {405, true}} {
		if e := NotAPI("openai", "x", resp(c.status, "application/json"), []byte(`{}`), c.json); e != nil {
			t.Errorf("%d json=%v: %+v", c.status, c.json, e)
		}
	}
}
