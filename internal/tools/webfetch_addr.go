package tools

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
)

// The address policy of web_fetch. A model that can be steered by the pages
// it reads must not be able to reach what only this machine can reach: the
// loopback interface, the local network, a cloud metadata service. So every
// destination is checked twice: the URL's host before a request is sent
// (literal addresses and localhost names, which needs no lookup), and the
// resolved address of every connection the transport opens, so that a
// name resolving to a private address, a DNS answer that changes between
// lookups, and a redirect to such a host are all refused.

// privateAddrError refuses a destination that is not a public address.
type privateAddrError struct {
	host string     // the host as the URL names it
	ip   netip.Addr // the address it resolved to; invalid for a refused name
	why  string     // what kind of address it is: "loopback", "private", ...
}

func (e *privateAddrError) Error() string {
	what := e.host
	if e.ip.IsValid() && e.ip.String() != strings.Trim(e.host, "[]") {
		what = fmt.Sprintf("%s (%s)", e.host, e.ip)
	}
	return fmt.Sprintf("%s is a %s address; web_fetch connects only to public internet addresses "+
		"unless the user lists the host in the settings' webFetch.allowPrivate", what, e.why)
}

// addrPolicy is the parsed AllowPrivate list.
type addrPolicy struct {
	hosts    map[string]bool // lower-case names, no trailing dot
	prefixes []netip.Prefix  // a single address is a full-length prefix
}

// newAddrPolicy parses allow: each entry is a host name, an IP address or
// a CIDR prefix. An entry that is neither an address nor a prefix is taken
// as a name, so a typo allows nothing rather than failing the tool.
func newAddrPolicy(allow []string) addrPolicy {
	p := addrPolicy{hosts: map[string]bool{}}
	for _, a := range allow {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if pf, err := netip.ParsePrefix(a); err == nil {
			p.prefixes = append(p.prefixes, pf.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(strings.Trim(a, "[]")); err == nil {
			ip = ip.Unmap().WithZone("")
			p.prefixes = append(p.prefixes, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		p.hosts[normHost(a)] = true
	}
	return p
}

// normHost lower-cases a host name and drops the trailing dot of a fully
// qualified name, so "LOCALHOST." and "localhost" are one name.
func normHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
}

func (p addrPolicy) hostAllowed(host string) bool { return p.hosts[normHost(host)] }

func (p addrPolicy) ipAllowed(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	for _, pf := range p.prefixes {
		if pf.Contains(ip) {
			return true
		}
	}
	return false
}

// checkHost is the check made before a request: it refuses a literal
// address or a localhost name that is not public and not allowed. Other
// names pass; their addresses are checked when the connection is made.
func (p addrPolicy) checkHost(host string) error {
	if host == "" || p.hostAllowed(host) {
		return nil
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if why := classifyAddr(ip); why != "" && !p.ipAllowed(ip) {
			return &privateAddrError{host: host, ip: ip, why: why}
		}
		return nil
	}
	if isLocalhostName(host) {
		// The name may resolve to either loopback address; when both
		// are allowed the dial-time check decides on the real one.
		v4, v6 := netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()
		if !p.ipAllowed(v4) && !p.ipAllowed(v6) {
			return &privateAddrError{host: host, why: "loopback"}
		}
	}
	return nil
}

// checkDialAddr is the check made on the address a connection is about to
// use ("ip:port", as net.Dialer's Control receives it).
func (p addrPolicy) checkDialAddr(host, address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		// Not an IP socket address: nothing known to be safe.
		return &privateAddrError{host: host, why: "unrecognised (" + address + ")"}
	}
	ip := ap.Addr()
	if why := classifyAddr(ip); why != "" && !p.ipAllowed(ip) {
		return &privateAddrError{host: host, ip: ip.Unmap().WithZone(""), why: why}
	}
	return nil
}

// control adapts checkDialAddr to net.Dialer.Control, which runs after
// the name was resolved and before each connection attempt.
func (p addrPolicy) control(host string) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		return p.checkDialAddr(host, address)
	}
}

// isLocalhostName reports whether host is a name for this machine that
// resolvers answer without asking DNS (RFC 6761 reserves ".localhost").
func isLocalhostName(host string) bool {
	h := normHost(host)
	switch h {
	case "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback":
		return true
	}
	return strings.HasSuffix(h, ".localhost")
}

// reservedRange is a block that is not a public unicast destination and
// that netip's predicates do not name.
type reservedRange struct {
	prefix netip.Prefix
	why    string
}

var reservedRanges = func() []reservedRange {
	rs := []struct{ cidr, why string }{
		{"0.0.0.0/8", "\"this network\""},
		{"100.64.0.0/10", "carrier-grade NAT (shared)"},
		{"192.0.0.0/24", "IETF protocol assignment"},
		{"192.0.2.0/24", "documentation"},
		{"198.18.0.0/15", "benchmarking"},
		{"198.51.100.0/24", "documentation"},
		{"203.0.113.0/24", "documentation"},
		{"240.0.0.0/4", "reserved or broadcast"},
		{"::/96", "IPv4-compatible"},
		{"64:ff9b:1::/48", "local-use NAT64"},
		{"100::/64", "discard-only"},
		{"2001:db8::/32", "documentation"},
		{"fec0::/10", "site-local"},
	}
	out := make([]reservedRange, len(rs))
	for i, r := range rs {
		out[i] = reservedRange{netip.MustParsePrefix(r.cidr), r.why}
	}
	return out
}()

var (
	nat64Prefix  = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour    = netip.MustParsePrefix("2002::/16")
	teredoPrefix = netip.MustParsePrefix("2001::/32")
)

// classifyAddr returns what kind of non-public address ip is, or "" for
// an address web_fetch may connect to by default. An IPv6 address that
// carries an IPv4 one (mapped, NAT64, 6to4, Teredo) is judged by the IPv4
// address too, since a gateway would deliver it there.
func classifyAddr(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsMulticast():
		return "multicast"
	}
	for _, r := range reservedRanges {
		if r.prefix.Contains(ip) {
			return r.why
		}
	}
	if v4, ok := embeddedIPv4(ip); ok {
		if why := classifyAddr(v4); why != "" {
			return why + " (embedded in IPv6)"
		}
	}
	return ""
}

// embeddedIPv4 extracts the IPv4 address an IPv6 transition address
// forwards to.
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	if !ip.Is6() {
		return netip.Addr{}, false
	}
	b := ip.As16()
	switch {
	case nat64Prefix.Contains(ip):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	case teredoPrefix.Contains(ip):
		// The client address is stored inverted.
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), true
	}
	return netip.Addr{}, false
}

// splitHostPortLoose returns the host of "host:port" or of a bare host.
func splitHostPortLoose(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}
