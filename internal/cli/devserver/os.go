package devserver

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"runtime"
	"time"
)

var isWindows = runtime.GOOS == "windows"

func newLineReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 64<<10) }

// stopProcess asks the process to stop (an interrupt; on Windows, which
// has none, a kill), waits up to 5 s for it to exit, then kills it.
func stopProcess(cmd *exec.Cmd, exit <-chan struct{}) {
	if isWindows {
		_ = cmd.Process.Kill()
	} else {
		_ = cmd.Process.Signal(os.Interrupt)
	}
	select {
	case <-exit:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-exit
	}
}
