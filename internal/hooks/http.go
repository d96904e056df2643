package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// checkURL accepts an absolute http or https URL.
func checkURL(raw string) error {
	if raw == "" {
		return errors.New("an http hook needs a \"url\"")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url %q: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("url %q: want an absolute http:// or https:// URL", raw)
	}
	return nil
}

// envRef is a variable reference in a header value: $NAME or ${NAME}.
var envRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)
})

// expandHeader fills in the variables of v that allowed lists, from
// lookup; any other reference becomes "", so that a header never carries
// a variable the hook's settings did not name for it.
func expandHeader(v string, allowed []string, lookup func(string) (string, bool)) string {
	return envRef().ReplaceAllStringFunc(v, func(ref string) string {
		m := envRef().FindStringSubmatch(ref)
		name := m[1] + m[2]
		if !slices.Contains(allowed, name) || lookup == nil {
			return ""
		}
		val, _ := lookup(name)
		return val
	})
}

// post runs an http hook: the event's JSON is POSTed to its URL, and a
// 2xx answer's body is read as a command hook's stdout. Any other status,
// a failed connection or the timeout is a Warning and no decision, as a
// command hook's failure is; an http hook cannot block by its status.
func (r *Runner) post(ctx context.Context, event string, h Command, payload []byte) Decision {
	warn := func(err error) Decision {
		return Decision{Warnings: []Warning{{Event: event, Command: h.URL, Err: err}}}
	}
	hctx, cancel := context.WithTimeoutCause(ctx, h.Timeout, errHookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(hctx, http.MethodPost, h.URL, bytes.NewReader(payload))
	if err != nil {
		return warn(fmt.Errorf("%w: %w", ErrNotRun, err))
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h.Headers {
		req.Header.Set(k, expandHeader(v, h.AllowedEnvVars, r.lookupEnv))
	}
	resp, err := r.client.Do(req)
	switch {
	case ctx.Err() != nil:
		if resp != nil {
			resp.Body.Close()
		}
		return Decision{} // the caller gave up; not the hook's fault
	case err != nil && errors.Is(context.Cause(hctx), errHookTimeout):
		return warn(fmt.Errorf("%w after %gs", ErrTimeout, h.Timeout.Seconds()))
	case err != nil:
		return warn(fmt.Errorf("%w: %w", ErrNotRun, err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxStdout+1))
	switch {
	case err != nil && errors.Is(context.Cause(hctx), errHookTimeout):
		return warn(fmt.Errorf("%w after %gs reading the answer", ErrTimeout, h.Timeout.Seconds()))
	case err != nil:
		return warn(fmt.Errorf("%w: reading the answer: %w", ErrBadOutput, err))
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return warn(fmt.Errorf("%w with HTTP status %s%s", ErrExitStatus, resp.Status, bodyNote(body)))
	case len(body) > maxStdout:
		return warn(fmt.Errorf("%w: more than %d bytes in the answer", ErrBadOutput, maxStdout))
	}
	d, perr := parseOutput(event, body)
	if perr != nil {
		return warn(fmt.Errorf("%w: %w", ErrBadOutput, perr))
	}
	return d
}

func bodyNote(b []byte) string {
	s := abbreviate(string(b), 200)
	if s == "" {
		return ""
	}
	return ": " + s
}

// lookupEnv reads a variable of the hooks' environment, the one command
// hooks get: a header can carry only what a hook process could see, so
// the variables envpolicy withholds (API keys, tokens) never leave ply
// through a header either, whatever allowedEnvVars lists. The user's
// shellEnvironment "include" lets one through, for command and http
// hooks alike.
func (r *Runner) lookupEnv(name string) (string, bool) {
	for i := len(r.env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(r.env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}
