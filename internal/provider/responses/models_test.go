package responses

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// TestListModels: the Responses client lists the same endpoint's models.
func TestListModels(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"object":"list","data":[{"id":"o4-mini","object":"model"}]}`))
	}))
	defer srv.Close()
	ids, err := New(Config{BaseURL: srv.URL + "/v1"}).ListModels(context.Background())
	if err != nil || !slices.Equal(ids, []string{"o4-mini"}) {
		t.Fatalf("ids %v, err %v", ids, err)
	}
}
