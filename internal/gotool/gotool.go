// Package gotool runs the go command from a test the way the test itself
// was built: with the race detector when the test binary has it.
//
// A test that builds another program (an example server, a client-only
// binary, the Go blocks of the docs) compiles that program's packages. Built
// with the flags of the test binary, they are the packages go test compiled
// for the tests already and come from the build cache; built plainly under a
// -race test run, they were a second compilation of most of the module (on
// a machine with an empty cache, minutes of CPU time in make test).
package gotool

import "os/exec"

// Race reports whether this program was built with the race detector.
const Race = race

// Command returns the go command running sub (build, vet, test, run, ...)
// with -race first among its flags when this program was built with the
// race detector, then args.
func Command(sub string, args ...string) *exec.Cmd {
	return exec.Command("go", Args(sub, args...)...)
}

// Args is the argument list of [Command]: sub, -race when this program was
// built with the race detector, then args.
func Args(sub string, args ...string) []string {
	out := make([]string, 0, len(args)+2)
	out = append(out, sub)
	if Race {
		out = append(out, "-race")
	}
	return append(out, args...)
}
