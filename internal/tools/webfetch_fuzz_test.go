package tools

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzWebFetchURL feeds arbitrary URLs through the checks web_fetch makes
// before a request: they must not panic, an accepted URL must be http(s)
// with a host, and a literal address the classifier refuses must be
// refused by the default policy.
func FuzzWebFetchURL(f *testing.F) {
	for _, s := range []string{
		"https://example.com/a?b#c", "http://127.0.0.1:8080/", "http://[::1]/", "http://[fe80::1%25eth0]/",
		"http://[::ffff:10.0.0.1]:1/", "ftp://x/", "http://", "example.com", "http://localhost./",
		"http://0x7f.1/", "http://2130706433/", "HTTP://EXAMPLE.COM:65535", "http://a:b@host:0/", "http://[64:ff9b::a00:1]/",
	} {
		f.Add(s)
	}
	deny := newAddrPolicy(nil)
	allow := newAddrPolicy([]string{"10.0.0.0/8", "::1", "intranet"})
	f.Fuzz(func(t *testing.T, raw string) {
		u, msg := parseFetchURL(raw)
		if msg == "" {
			if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
				t.Fatalf("accepted scheme %q of %q", u.Scheme, raw)
			}
			if u.Hostname() == "" {
				t.Fatalf("accepted %q without a host", raw)
			}
			host := u.Hostname()
			errDeny := deny.checkHost(host)
			_ = allow.checkHost(host)
			if ip, err := netip.ParseAddr(host); err == nil && classifyAddr(ip) != "" && errDeny == nil {
				t.Fatalf("literal %s (%s) passed the default policy", host, classifyAddr(ip))
			}
			if isLocalhostName(host) && errDeny == nil {
				t.Fatalf("localhost name %q passed the default policy", host)
			}
		}
		if ip, err := netip.ParseAddr(raw); err == nil {
			_ = classifyAddr(ip)
			_ = deny.checkDialAddr("h", netip.AddrPortFrom(ip, 80).String())
		}
		_ = deny.checkDialAddr("h", raw)
	})
}
