package transport

import (
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
