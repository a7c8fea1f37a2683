//go:build unix

package install

import "syscall"

// openNonblock keeps an open of a FIFO (put in a file's place after it
// was checked) from waiting for a writer.
const openNonblock = syscall.O_NONBLOCK
