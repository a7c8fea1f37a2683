package middleware

import "testing"

// FuzzLoopbackHost: the fast path of the Host check never admits a host
// that parsing would refuse.
func FuzzLoopbackHost(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8000", "localhost:8000", "127.0.0.1", "localhost", "127.0.0.1:",
		"127.0.0.1:80:90", "127.0.0.1.evil.example", "localhost.evil.example:80", "[::1]:8000", "LOCALHOST:1",
		"127.0.0.1:8o", "evil.example", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if plainLoopbackHost(host) && !parsedLoopbackHost(host) {
			t.Fatalf("plainLoopbackHost(%q) is true, parsedLoopbackHost false", host)
		}
	})
}
