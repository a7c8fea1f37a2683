//go:build !unix

package install

// openNonblock: there are no FIFOs to open in a file's place here.
const openNonblock = 0
